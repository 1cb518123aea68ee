/* The reference the chain oracles are timed against: a plain C Viterbi over a batch of
 * first-order chains, unary scores included.
 *
 * unary[t, l] = x_t . emissions[l] (+ loss[y_true[t]] for l != y_true[t] when y_true is given),
 * computed in (position, feature, label) order so that the innermost loop runs over the
 * labels with unit stride; then, for every sequence, the textbook forward pass with
 * backpointers (best score of a labelling of positions 0..t ending in label l, and the label
 * before it) and the backtrace. Sequence k occupies rows offsets[k] to offsets[k + 1] - 1.
 */
#include <math.h>

void c_viterbi(const double *X, long n_positions, long n_features, const long *offsets,
               long n_sequences, const double *emissions_by_feature, const double *transitions,
               long n_labels, const long *y_true, const double *label_weights, double *unary,
               double *best, long *backpointers, long *labels)
{
    for (long t = 0; t < n_positions; t++) {
        double *row = unary + t * n_labels;
        const double *x = X + t * n_features;
        for (long l = 0; l < n_labels; l++) row[l] = 0.0;
        for (long j = 0; j < n_features; j++) {
            const double value = x[j];
            const double *weights = emissions_by_feature + j * n_labels;
            for (long l = 0; l < n_labels; l++) row[l] += value * weights[l];
        }
        if (y_true) {
            const double cost = label_weights[y_true[t]];
            for (long l = 0; l < n_labels; l++)
                if (l != y_true[t]) row[l] += cost;
        }
    }
    for (long k = 0; k < n_sequences; k++) {
        const long begin = offsets[k], stop = offsets[k + 1];
        for (long l = 0; l < n_labels; l++)
            best[begin * n_labels + l] = unary[begin * n_labels + l];
        for (long t = begin + 1; t < stop; t++) {
            const double *before = best + (t - 1) * n_labels;
            for (long l = 0; l < n_labels; l++) {
                double top = -INFINITY;
                long argtop = 0;
                for (long previous = 0; previous < n_labels; previous++) {
                    const double value = before[previous] + transitions[previous * n_labels + l];
                    if (value > top) {
                        top = value;
                        argtop = previous;
                    }
                }
                best[t * n_labels + l] = top + unary[t * n_labels + l];
                backpointers[t * n_labels + l] = argtop;
            }
        }
        double top = -INFINITY;
        long argtop = 0;
        for (long l = 0; l < n_labels; l++) {
            if (best[(stop - 1) * n_labels + l] > top) {
                top = best[(stop - 1) * n_labels + l];
                argtop = l;
            }
        }
        labels[stop - 1] = argtop;
        for (long t = stop - 1; t > begin; t--)
            labels[t - 1] = backpointers[t * n_labels + labels[t]];
    }
}
