"""
Tagging named entities from feature dicts
=========================================

Sentences go in as sklearn-crfsuite takes them: a list of tokens, each a dict of features
(strings are one-hot, numbers and bools are values, lists of strings are several one-hot
features). :class:`structsvm.SequenceTagger` learns string tags from them with a structural SVM,
as a chain over the BIO tags or, with ``segments=L``, as a semi-Markov model over whole entities
of at most L tokens (:class:`tasks.SemiMarkovTask`), which also weighs an entity's length and
its first and last words. :func:`tasks.chunk_scores` scores the entities as conlleval does.
"""

import random

import matplotlib.pyplot as plt

from structsvm import SequenceTagger
from tasks import chunk_scores

# %%
# A small made-up corpus: people (one or two words) and places in short sentences.
FIRST = ["Ana", "Luis", "Eva", "Juan", "Marta", "Pablo"]
LAST = ["Pérez", "García", "Ruiz", "Soto"]
PLACES = ["Madrid", "Lima", "Quito", "Roma", "Bilbao"]
VERBS = ["vive", "trabaja", "estudia", "llega"]


def sentence(rng):
    person = [rng.choice(FIRST)] + ([rng.choice(LAST)] if rng.random() < 0.5 else [])
    words = [*person, rng.choice(VERBS), "en", rng.choice(PLACES)]
    tags = ["B-PER", *["I-PER"] * (len(person) - 1), "O", "O", "B-LOC"]
    return words, tags


def features(words):
    """The dict of every token: the word, its case and suffix, and its neighbours."""
    return [
        {
            "lower": word.lower(),
            "title": word.istitle(),
            "suffixes": [word[-2:], word[-3:]],
            "-1:lower": words[t - 1].lower() if t else "<s>",
            "+1:lower": words[t + 1].lower() if t + 1 < len(words) else "</s>",
        }
        for t, word in enumerate(words)
    ]


rng = random.Random(0)
train = [sentence(rng) for _ in range(40)]
test = [sentence(rng) for _ in range(40)]
X_train, y_train = [features(w) for w, _ in train], [t for _, t in train]
X_test, y_test = [features(w) for w, _ in test], [t for _, t in test]

# %%
# A chain over the BIO tags and a semi-Markov model over entities of at most 3 tokens.
chain = SequenceTagger(C=1.0, random_state=0).fit(X_train, y_train)
segments = SequenceTagger(C=1.0, segments=3, random_state=0).fit(X_train, y_train)
words, _ = test[0]
print(list(zip(words, segments.predict([features(words)])[0], strict=True)))

f1 = {
    name: chunk_scores(y_test, model.predict(X_test)).f1
    for name, model in (("chain", chain), ("semi-Markov", segments))
}
print(f1)

# %%
fig, ax = plt.subplots(figsize=(4, 2.5))
ax.bar(list(f1), list(f1.values()))
ax.set_ylim(0, 1.05)
ax.set_ylabel("entity F1 (held-out sentences)")
fig.tight_layout()
