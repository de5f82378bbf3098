// Command calibrate compares a calibration run of the simulator's
// a100-llama3-8b profile (examples/calibration.hcl, run by `make calibrate`)
// with the public reference figures for Llama-3-8B on one A100 80GB, prints
// the table, and exits 1 when a figure is outside its tolerance.
//
// It imports results; nothing imports it.
package main
