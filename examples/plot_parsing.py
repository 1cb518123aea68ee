"""
Parsing: dependency trees and a weighted grammar
================================================

Two ways to parse a sentence, each trained as a structural SVM on a handful of trees written
here. :class:`tasks.DependencyTask` scores every head → dependent arc from hashed features of
the two words (McDonald, Crammer & Pereira, ACL 2005) and decodes with Eisner's algorithm; it
reads and writes CoNLL-U (:func:`structsvm.io.read_conllu`). :class:`tasks.WeightedCFGTask`
learns the weights of a context-free grammar read off bracketed trees and decodes with CKY
(Tsochantaridis, Joachims, Hofmann & Altun, JMLR 2005), beside the maximum-likelihood PCFG of
the same grammar. The figure draws the dependency tree the parser finds for a new sentence.
"""

import tempfile
from pathlib import Path

import matplotlib.pyplot as plt
from matplotlib.patches import Arc

from structsvm import StructuredSVM
from structsvm.io import bracket_scores, parse_trees, prepare_tree, read_conllu
from tasks import ArcFeatures, DependencyTask, WeightedCFGTask

# %%
# Dependency trees from CoNLL-U
# -----------------------------
# Columns: index, word, lemma, universal tag, language tag, features, head, relation, ...

CONLLU = """\
1	the	_	DET	_	_	2	det	_	_
2	dog	_	NOUN	_	_	3	nsubj	_	_
3	barks	_	VERB	_	_	0	root	_	_

1	a	_	DET	_	_	2	det	_	_
2	cat	_	NOUN	_	_	3	nsubj	_	_
3	sees	_	VERB	_	_	0	root	_	_
4	the	_	DET	_	_	5	det	_	_
5	dog	_	NOUN	_	_	3	obj	_	_

1	dogs	_	NOUN	_	_	2	nsubj	_	_
2	chase	_	VERB	_	_	0	root	_	_
3	small	_	ADJ	_	_	4	amod	_	_
4	cats	_	NOUN	_	_	2	obj	_	_

1	the	_	DET	_	_	3	det	_	_
2	old	_	ADJ	_	_	3	amod	_	_
3	cat	_	NOUN	_	_	4	nsubj	_	_
4	sleeps	_	VERB	_	_	0	root	_	_

"""

with tempfile.TemporaryDirectory() as folder:
    (Path(folder) / "train.conllu").write_text(CONLLU)
    treebank = read_conllu(Path(folder) / "train.conllu")
task = DependencyTask(ArcFeatures(n_features=2**16), decoder="eisner")
X, heads = task.inputs(treebank), [sentence.heads for sentence in treebank]
parser = StructuredSVM(task, C=10.0).fit(X, heads)
print(f"solver {parser.solver_!r}, training trees recovered: {parser.score(X, heads):.2f}")

words = ["the", "small", "dog", "chases", "a", "cat"]
tags = ["DET", "ADJ", "NOUN", "VERB", "DET", "NOUN"]
(predicted,) = parser.predict([task.features.sentence(words, tags)])
print("heads:", predicted)

# %%
# The tree found for a new sentence: every arc drawn from its head to its dependent.

fig, ax = plt.subplots(figsize=(7, 2.6))
for position, (word, tag) in enumerate(zip(words, tags, strict=True), start=1):
    ax.text(position, 0, f"{word}\n{tag}", ha="center", va="top")
for dependent, head in enumerate(predicted, start=1):
    if head == 0:
        ax.annotate("root", (dependent, 0.05), (dependent, 1.6), ha="center",
                    arrowprops={"arrowstyle": "->"})
        continue
    width = abs(dependent - head)
    ax.add_patch(Arc(((head + dependent) / 2, 0.05), width, 0.7 * width, theta1=0, theta2=180))
    ax.annotate("", (dependent, 0.05), (dependent + 0.02 * (head - dependent), 0.3),
                arrowprops={"arrowstyle": "->"})
ax.set_xlim(0.3, len(words) + 0.7)
ax.set_ylim(-0.6, 2.0)
ax.axis("off")
ax.set_title("Dependency tree found by Eisner's algorithm")
plt.tight_layout()

# %%
# A weighted context-free grammar
# -------------------------------
# Penn Treebank brackets, with function tags and empty elements stripped by
# :func:`structsvm.io.prepare_tree`; the grammar is read off the binarised trees.

BRACKETS = """
( (S (NP-SBJ (DT the) (NN dog)) (VP (VBZ sees) (NP (DT a) (NN cat))) (. .)) )
( (S (NP-SBJ (PRP it)) (VP (VBZ sleeps) (PP-LOC (IN in) (NP (DT the) (NN sun)))) (. .)) )
( (S (NP-SBJ-1 (DT a) (NN cat)) (VP (VBZ is) (VP (VBN seen) (NP (-NONE- *-1)))) (. .)) )
"""
trees = [prepare_tree(tree) for tree in parse_trees(BRACKETS)]
grammar = WeightedCFGTask(trees, markov=1)
X, Y = grammar.check_data(*zip(*(grammar.encode(tree) for tree in trees), strict=True))
svm = StructuredSVM(grammar, C=10.0).fit(X, Y)
pcfg = grammar.maximum_likelihood_weights(trees)

sentence = "the cat sees a dog .".split()
for name, w in (("structural SVM", svm.w_), ("PCFG", pcfg)):
    print(f"{name}: {grammar.to_tree(grammar.argmax(grammar.encode_input(sentence), w), sentence)}")
parses = [grammar.to_tree(y, tree.words()) for y, tree in zip(svm.predict(X), trees, strict=True)]
print(f"labelled-bracket F1 on the training trees: {bracket_scores(trees, parses).f1:.2f}")
