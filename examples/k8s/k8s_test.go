package k8s_test

import (
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"

	"github.com/llmload/llmload/scenario"
)

// decode reads a manifest into its API type, rejecting unknown fields.
func decode(t *testing.T, path string, into any) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.UnmarshalStrict(data, into); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

// flagValue returns the argument after -name in args.
func flagValue(t *testing.T, args []string, name string) string {
	t.Helper()
	i := slices.Index(args, "-"+name)
	if i < 0 || i+1 >= len(args) {
		t.Fatalf("args %q have no -%s", args, name)
	}
	return args[i+1]
}

func env(c corev1.Container, name string) (string, bool) {
	for _, e := range c.Env {
		if e.Name == name {
			return e.Value, true
		}
	}
	return "", false
}

func TestStrictDecodeRejectsUnknownFields(t *testing.T) {
	var job batchv1.Job
	err := yaml.UnmarshalStrict([]byte("apiVersion: batch/v1\nkind: Job\nspec:\n  completionsMode: Indexed\n"), &job)
	if err == nil || !strings.Contains(err.Error(), "completionsMode") {
		t.Fatalf("a misspelt field decoded: %v", err)
	}
}

func TestManifests(t *testing.T) {
	var (
		cm    corev1.ConfigMap
		svc   corev1.Service
		pvc   corev1.PersistentVolumeClaim
		job   batchv1.Job
		merge batchv1.Job
	)
	decode(t, "configmap.yaml", &cm)
	decode(t, "service.yaml", &svc)
	decode(t, "pvc.yaml", &pvc)
	decode(t, "job.yaml", &job)
	decode(t, "merge/job.yaml", &merge)
	for _, o := range []struct{ kind, want string }{{cm.Kind, "ConfigMap"}, {svc.Kind, "Service"}, {pvc.Kind, "PersistentVolumeClaim"}, {job.Kind, "Job"}, {merge.Kind, "Job"}} {
		if o.kind != o.want {
			t.Errorf("kind %q, want %q", o.kind, o.want)
		}
	}

	// The Job: Indexed, N pods at once, N passed to llmload.
	spec := job.Spec
	if spec.CompletionMode == nil || *spec.CompletionMode != batchv1.IndexedCompletion {
		t.Errorf("completionMode %v, want Indexed (JOB_COMPLETION_INDEX is the shard)", spec.CompletionMode)
	}
	if spec.Parallelism == nil || spec.Completions == nil {
		t.Fatal("parallelism or completions unset: want both, equal to the shard count")
	}
	if *spec.Parallelism != *spec.Completions {
		t.Fatalf("parallelism %d, completions %d: want equal (every shard at once)", *spec.Parallelism, *spec.Completions)
	}
	n := int(*spec.Completions)
	if spec.BackoffLimitPerIndex == nil {
		t.Error("no backoffLimitPerIndex: a failed shard would use up the whole Job's retries")
	}
	pod := spec.Template.Spec
	if pod.RestartPolicy != corev1.RestartPolicyNever {
		t.Errorf("restartPolicy %q, want Never (podFailurePolicy needs it)", pod.RestartPolicy)
	}
	if len(pod.Containers) != 1 {
		t.Fatalf("%d containers, want 1", len(pod.Containers))
	}
	c := pod.Containers[0]
	if shards, _ := env(c, "LLMLOAD_SHARDS"); shards != strconv.Itoa(n) {
		t.Errorf("LLMLOAD_SHARDS %q, want the Job's parallelism %d", shards, n)
	}
	if c.Image != "llmload:latest" || merge.Spec.Template.Spec.Containers[0].Image != c.Image {
		t.Errorf("images %q and %q: want llmload:latest (built from the Dockerfile) in both Jobs", c.Image, merge.Spec.Template.Spec.Containers[0].Image)
	}
	if sc := pod.SecurityContext; sc == nil || sc.RunAsNonRoot == nil || !*sc.RunAsNonRoot {
		t.Error("the shards may run as root")
	}
	if len(c.Args) < 2 || c.Args[0] != "run" {
		t.Fatalf("args %q: want llmload run", c.Args)
	}
	for _, rule := range spec.PodFailurePolicy.Rules {
		if r := rule.OnExitCodes; r != nil && r.ContainerName != nil && *r.ContainerName != c.Name {
			t.Errorf("podFailurePolicy names container %q, the container is %q", *r.ContainerName, c.Name)
		}
	}

	// The barrier: shard 0's DNS name through the headless Service, on the
	// port the container and the Service open.
	b, err := url.Parse(flagValue(t, c.Args, "barrier"))
	if err != nil {
		t.Fatal(err)
	}
	if pod.Subdomain != svc.Name || svc.Spec.ClusterIP != corev1.ClusterIPNone {
		t.Errorf("subdomain %q, Service %q with clusterIP %q: want the pods' subdomain to be a headless Service", pod.Subdomain, svc.Name, svc.Spec.ClusterIP)
	}
	if want := job.Name + "-0." + svc.Name; b.Hostname() != want {
		t.Errorf("barrier host %q, want shard 0's pod %q", b.Hostname(), want)
	}
	if len(c.Ports) != 1 || len(svc.Spec.Ports) != 1 || strconv.Itoa(int(c.Ports[0].ContainerPort)) != b.Port() || svc.Spec.Ports[0].Port != c.Ports[0].ContainerPort ||
		svc.Spec.Ports[0].TargetPort.String() != c.Ports[0].Name {
		t.Errorf("barrier port %s, container ports %+v, Service ports %+v: want one port, the same everywhere", b.Port(), c.Ports, svc.Spec.Ports)
	}
	for k, v := range svc.Spec.Selector {
		if spec.Template.Labels[k] != v {
			t.Errorf("the Service selects %s=%s, the shard pods have %q", k, v, spec.Template.Labels[k])
		}
	}

	// Volumes: the scenario from the ConfigMap, the results on the claim.
	mounts := map[string]string{}
	for _, m := range c.VolumeMounts {
		mounts[m.Name] = m.MountPath
	}
	var cmName, claim string
	for _, v := range pod.Volumes {
		if v.ConfigMap != nil {
			cmName = v.ConfigMap.Name
		}
		if v.PersistentVolumeClaim != nil {
			claim = v.PersistentVolumeClaim.ClaimName
		}
	}
	if cmName != cm.Name || claim != pvc.Name {
		t.Errorf("volumes name ConfigMap %q and claim %q, want %q and %q", cmName, claim, cm.Name, pvc.Name)
	}
	scenarioPath := c.Args[1]
	dir, key := filepath.Split(scenarioPath)
	if filepath.Clean(dir) != mounts["scenario"] || cm.Data[key] == "" {
		t.Errorf("llmload runs %s; the ConfigMap is mounted at %s with keys %v", scenarioPath, mounts["scenario"], slices.Collect(mapKeys(cm.Data)))
	}
	out := flagValue(t, c.Args, "out")
	if out != mounts["results"] {
		t.Errorf("-out %s is not the results volume (%s)", out, mounts["results"])
	}

	// The scenario in the ConfigMap is valid and names the scenario run.
	name := flagValue(t, c.Args, "scenario")
	hcl := filepath.Join(t.TempDir(), key)
	if err := os.WriteFile(hcl, []byte(cm.Data[key]), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, diags := scenario.Load([]string{hcl}, scenario.LoadOptions{})
	if diags.HasErrors() {
		t.Fatalf("the ConfigMap's scenario: %v", diags)
	}
	if cfg.Scenario(name) == nil {
		t.Fatalf("the ConfigMap has no scenario %q", name)
	}

	// The merge reads exactly the N shards' results where they write them.
	m := merge.Spec.Template.Spec.Containers[0]
	if len(m.Args) == 0 || m.Args[0] != "merge" {
		t.Fatalf("merge args %q", m.Args)
	}
	var inputs []string
	for i := 1; i < len(m.Args) && !strings.HasPrefix(m.Args[i], "-"); i++ {
		inputs = append(inputs, m.Args[i])
	}
	var want []string
	for i := range n {
		want = append(want, filepath.Join(out, fmt.Sprintf("shard-%d", i), name+".json"))
	}
	if !slices.Equal(inputs, want) {
		t.Errorf("merge reads %q, want the %d shards' results %q", inputs, n, want)
	}
	if merge.Spec.Template.Spec.Volumes[0].PersistentVolumeClaim.ClaimName != pvc.Name || m.VolumeMounts[0].MountPath != out {
		t.Errorf("the merge does not mount the results claim at %s", out)
	}
}

func mapKeys(m map[string]string) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// TestDockerfile: a multi-stage build of a static binary onto a distroless
// base, run as a non-root user.
func TestDockerfile(t *testing.T) {
	data, err := os.ReadFile("../../Dockerfile")
	if err != nil {
		t.Fatal(err)
	}
	s := string(data)
	var froms []string
	for _, l := range strings.Split(s, "\n") {
		if f, ok := strings.CutPrefix(l, "FROM "); ok {
			froms = append(froms, f)
		}
	}
	if len(froms) != 2 || !strings.Contains(froms[1], "distroless/static") {
		t.Errorf("stages %q: want a build stage and a distroless static one", froms)
	}
	for _, want := range []string{"CGO_ENABLED=0", "USER 65532", "./cmd/llmload", "COPY --from=build"} {
		if !strings.Contains(s, want) {
			t.Errorf("the Dockerfile lacks %q", want)
		}
	}
}
