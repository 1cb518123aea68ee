"""
Convergence of the solvers
==========================

The three solvers of :class:`structsvm.StructuredSVM` minimise the same objective; their
``history_`` records the primal objective and the duality gap after every iteration. Here they
train a chain on 50 OCR words, and the gap is drawn against time and iterations
(:func:`structsvm.plotting.plot_convergence` draws the same into a PNG file). The 1-slack
solver needs many cheap iterations, n-slack fewer expensive ones, and block-coordinate
Frank–Wolfe needs no QP at all.
"""

import matplotlib.pyplot as plt
import numpy as np

from structsvm import StructuredSVM
from structsvm.datasets import ocr_letters_split
from tasks import ChainTask

train, _ = ocr_letters_split("small")
train = train.select(np.arange(len(train.X)) < 50)
task = ChainTask(len(train.label_names), train.X[0].shape[1])

histories = {}
for solver, budget in [("n-slack", 15), ("1-slack", 80), ("bcfw", 15)]:
    model = StructuredSVM(task, C=0.1, solver=solver, max_iter=budget, tol=1e-3, random_state=0)
    histories[solver] = model.fit(train.X, train.Y).history_
    last = histories[solver][-1]
    print(f"{solver}: primal {last['primal']:.4f} after {last['iteration']} iterations")

# %%
# The relative duality gap, a certified bound on how far each primal is from the optimum.
figure, (by_time, by_iteration) = plt.subplots(1, 2, figsize=(10, 4), sharey=True)
for solver, history in histories.items():
    records = [r for r in history if r.get("relative_gap", 0) > 0]
    by_time.plot([r["time"] for r in records], [r["relative_gap"] for r in records], label=solver)
    by_iteration.plot([r["iteration"] for r in records], [r["relative_gap"] for r in records])
by_time.set(xscale="log", yscale="log", xlabel="time (s)", ylabel="relative duality gap")
by_iteration.set(xscale="log", xlabel="iteration")
by_time.legend()
figure.tight_layout()
