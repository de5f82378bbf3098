// Package compare decides whether a candidate run is worse than a baseline
// run beyond noise. For each figure it computes the delta (candidate minus
// baseline), a 95% interval of that delta from the two runs' recorded
// distributions, and, against a tolerance, a verdict: a regression (fail)
// only when the whole interval lies beyond the tolerance, a pass when the
// whole interval lies within it, inconclusive when it straddles it.
//
// The methods (docs/compare.md):
//   - percentiles: a bootstrap of each run's percentile from its HDR
//     histogram (the k-th order statistic of n samples is the histogram's
//     value at a level drawn from Beta(k, n+1-k)), replicates differenced
//     and the interval read from their quantiles; seeded, so deterministic;
//   - means: Welch's normal interval from the exact counts, means and
//     standard deviations;
//   - throughputs and goodput: the per-window time series (whole windows,
//     the first and last dropped), a Welch t-interval around the delta;
//   - the error rate: the Agresti-Caffo interval of a difference of two
//     proportions;
//   - serial correlation (a queue builds and drains): the TTFT and ITL
//     intervals and the throughputs' are widened to the spread over
//     batches of consecutive windows whenever it is wider (batches.go);
//   - a sequential gate (sequential.go): the looks of an A/B run or a
//     repeat, each judged at a share of the error rate;
//   - any figure, when both sides hold repeated runs (Options.BaseRuns
//     and NewRuns): a Welch t-interval over the runs' values, around the
//     delta of the pooled figures, so that drift between runs is inside
//     the interval; for the blocks of an interleaved A/B run (paired), a
//     t-interval over the per-block differences.
//
// It imports only metrics: it reads summaries, never files or HCL. A
// Delta writes itself as a row of a result file's comparison
// (results.Comparison), the one type from the statistics to the file and
// the table.
//
// It imports only metrics. scenario, assert, results, report and runner
// import it.
package compare
