"""Sentences of random words for the tests of dependency parsing, and the score of a tree."""

from tasks import ArcFeatures

VOCABULARY = ["the", "dog", "barks", "loudly", "at", "cats", "extraordinarily", "."]
TAGS = ["DET", "NOUN", "VERB", "ADV", "ADP", "NOUN", "ADV", "PUNCT"]


def tree_score(scores, heads):
    """Return the sum of the scores of the arcs of a tree (word d's head at heads[d - 1])."""
    return sum(scores[h, d] for d, h in enumerate(heads, start=1))


def random_sentences(count, rng, lengths=(1, 5)):
    """Return sentences of random words (with their tags) of the given lengths."""
    features = ArcFeatures(2**12)
    sentences = []
    for _ in range(count):
        picks = rng.integers(0, len(VOCABULARY), rng.integers(lengths[0], lengths[1] + 1))
        sentences.append(
            features.sentence([VOCABULARY[k] for k in picks], [TAGS[k] for k in picks])
        )
    return sentences
