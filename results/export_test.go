package results

// OrderedLatencyKeys is orderedLatencyKeys, for the tests of results_test.
var OrderedLatencyKeys = orderedLatencyKeys
