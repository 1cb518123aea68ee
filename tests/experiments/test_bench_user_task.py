"""The user's chain of the benchmark keeps the task contract and trains to the built-in optimum."""

import numpy as np

from experiments.bench_user_task import UserChain
from structsvm import StructuredSVM, check_task
from tasks import ChainTask


def test_the_users_chain_keeps_its_contract_and_reaches_the_built_in_chains_optimum(
    label_sequences,
):
    X, Y = label_sequences(n_sequences=20, n_labels=3, lengths=(2, 6), noise=0.6, seed=0)
    user = UserChain(3, X[0].shape[1])
    assert check_task(user, X[:5], Y[:5]).ok
    fits = [
        StructuredSVM(task, C=1.0, solver="1-slack", tol=1e-6).fit(X, Y)
        for task in (user, ChainTask(3, X[0].shape[1]))
    ]
    primals = [fit.history_[-1]["primal"] for fit in fits]
    np.testing.assert_allclose(primals[0], primals[1], rtol=1e-5)
