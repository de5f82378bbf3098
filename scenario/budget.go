package scenario

// budget and stop_early: the most wall time (or GPU time) an A/B run or a
// repeated run may take, and whether its regression block is re-judged
// after every block or run so that the run stops once it is decided.

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/hashicorp/hcl/v2"

	"github.com/llmload/llmload/metrics"
)

// Budget is what a run may spend: Wall, the most wall time its load may
// take, from budget = "10m" or from a GPU-time budget ("40 gpu-minutes")
// over GPUs (gpus = 4: every GPU the run holds, both arms' for an A/B
// run). GPUMinutes is the GPU-time form as written (0: a wall time); a
// wall-time budget may name its GPUs too, so that the result counts the
// GPU minutes it spent.
type Budget struct {
	Wall       time.Duration `json:"wall"`
	GPUMinutes float64       `json:"gpu_minutes,omitempty"`
	GPUs       int           `json:"gpus,omitempty"`
}

// String renders a budget as written: "10m0s", "10m0s on 2 GPUs", "40
// gpu-minutes on 4 GPUs, 10m0s of wall time".
func (b Budget) String() string {
	switch {
	case b.GPUMinutes > 0:
		return fmt.Sprintf("%s gpu-minutes on %d GPUs, %s of wall time", strconv.FormatFloat(b.GPUMinutes, 'f', -1, 64), b.GPUs, b.Wall)
	case b.GPUs > 0:
		return fmt.Sprintf("%s on %d GPUs", b.Wall, b.GPUs)
	}
	return b.Wall.String()
}

// parseGPUTime reads "40 gpu-minutes", "1.5 gpu-hours" (also gpu-minute,
// gpu-hour, gpu-min, gpu-h): the GPU minutes, ok false when it is not of
// that form.
func parseGPUTime(v string) (float64, bool) {
	num, unit, ok := strings.Cut(strings.TrimSpace(v), " ")
	if !ok {
		return 0, false
	}
	f, err := strconv.ParseFloat(num, 64)
	if err != nil || f <= 0 {
		return 0, false
	}
	switch strings.TrimSpace(unit) {
	case "gpu-minutes", "gpu-minute", "gpu-min":
		return f, true
	case "gpu-hours", "gpu-hour", "gpu-h":
		return 60 * f, true
	}
	return 0, false
}

// decodeBudget reads budget, gpus and stop_early (called once the
// regression block and the baseline are decoded).
func (l *loader) decodeBudget(d dec, a hcl.Attributes, s *Scenario) {
	var gpus int
	gpusAttr := d.integer(a, "gpus", &gpus, 1)
	if attr, ok := a["budget"]; ok {
		var raw string
		d.str(a, "budget", &raw)
		if mins, ok := parseGPUTime(raw); ok {
			if gpusAttr == nil {
				d.invalid(attr, "A budget in GPU time needs the GPUs the run holds: set gpus (both arms' GPUs for an A/B run), such as gpus = 2.")
			} else if gpus > 0 {
				s.Budget = &Budget{GPUMinutes: mins, GPUs: gpus, Wall: time.Duration(mins / float64(gpus) * float64(time.Minute))}
			}
		} else if _, err := time.ParseDuration(raw); err != nil && raw != "" {
			d.invalid(attr, "budget is a wall time (\"10m\", \"1h30m\") or a GPU time over gpus (\"40 gpu-minutes\", \"2 gpu-hours\"), not %q.", raw)
		} else if raw != "" {
			if dur, ok := d.parseDuration(attr, raw, attr.Expr.Range()); ok && d.checkDuration(attr, dur, true) {
				s.Budget = &Budget{Wall: dur, GPUs: gpus}
			}
		}
		if s.Budget != nil && !s.AB() && s.Repeats() < 2 {
			d.invalid(attr, "budget limits the blocks of an A/B run (targets) or the runs of a repeat (repeat = N); a single run's length is its duration or requests.")
			s.Budget = nil
		}
		if s.Budget != nil && (s.Sweep != nil || s.Capacity != nil) {
			d.invalid(attr, "budget does not limit a %s yet; limit its steps' durations instead.", blockName(s))
			s.Budget = nil
		}
	} else if gpusAttr != nil {
		d.invalid(gpusAttr, "gpus is the GPUs a budget is spent on (a GPU-time budget is divided by it; a wall-time one counts its GPU minutes); set budget = \"<N> gpu-minutes\" or budget = \"15m\", or remove gpus.")
	}
	attr, ok := a["stop_early"]
	if !ok {
		return
	}
	d.boolean(a, "stop_early", &s.StopEarly)
	if !s.StopEarly {
		return
	}
	refuse := func(format string, args ...any) {
		d.invalid(attr, format, args...)
		s.StopEarly = false
	}
	switch {
	case len(s.Regression) == 0:
		refuse("stop_early re-judges the regression block after every block or run and stops once it is decided; this scenario has no regression block to judge.")
	case !judgesFigures(s):
		refuse("stop_early stops once the regression block's figures are decided; this one judges only answer agreement, which is checked once, on the whole run. Add a latency or throughput tolerance, or remove stop_early.")
	case s.AB():
	case s.Sweep != nil || s.Capacity != nil:
		refuse("stop_early does not stop a %s; remove it.", blockName(s))
	case s.Repeats() < 2:
		refuse("stop_early stops an A/B run (targets) or a repeated run (repeat = N) once its regression block is decided; this run is neither.")
	case s.Baseline == "":
		refuse("stop_early stops a repeated run once its regression block is decided against the baseline; set baseline to a result file with repeated runs.")
	}
}

// judgesFigures: the regression block has a tolerance a sequential gate
// re-judges (any but the agreement figures).
func judgesFigures(s *Scenario) bool {
	for _, t := range s.Tolerances() {
		if !metrics.IsAgreement(t.Metric) {
			return true
		}
	}
	return false
}
