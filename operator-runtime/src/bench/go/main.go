// The operator benchmark's Go yardstick: the same work as the Java floor (OperatorBenchmark's
// FloorReconciler) on controller-runtime, the stack a Go operator is built on. It creates each
// ModelDeployment's Pods from the bodies our renderer wrote (renamed, as the floor does), replaces
// those whose dtype flag disagrees with the Setting one at a time while the rest are Ready, and
// writes one status field. No rule of ours is written again here: the benchmark passes every name.
// Never shipped; built by the benchmark into target/.
//
// usage: kvcache-go-controller -kubeconfig F -metrics ADDR -templates DIR -setting NS/NAME
//
//	-managed-by KEY=VALUE -ordinal-label KEY -flag --kv-cache-dtype -user-agent UA [-workers N]
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
)

const (
	replicas      = 4
	template      = "md-0000"
	templateModel = `"org/model-0"`
	ownerIndex    = "metadata.ownerName"
)

var (
	deploymentKind = schema.GroupVersionKind{Group: "worker.gpustack.ai", Version: "v1", Kind: "ModelDeployment"}
	settingKind    = schema.GroupVersionKind{Group: "gpustack.ai", Version: "v1", Kind: "Setting"}
)

type reconciler struct {
	client.Client
	templates    map[bool][]string
	setting      types.NamespacedName
	ordinalLabel string
	dtypeFlag    string
}

func (r *reconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	md := deployment()
	if err := r.Get(ctx, req.NamespacedName, md); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	owned, err := r.owned(ctx)
	if err != nil {
		return ctrl.Result{}, err
	}
	var list corev1.PodList
	if err := r.List(ctx, &list, client.InNamespace(req.Namespace), client.MatchingFields{ownerIndex: req.Name}); err != nil {
		return ctrl.Result{}, err
	}
	pods := map[int]*corev1.Pod{}
	for i := range list.Items {
		if n, err := strconv.Atoi(list.Items[i].Labels[r.ordinalLabel]); err == nil {
			pods[n] = &list.Items[i]
		}
	}
	for ordinal := 0; ordinal < replicas; ordinal++ {
		if _, ok := pods[ordinal]; ok {
			continue
		}
		pod, err := r.pod(md, ordinal, owned)
		if err != nil {
			return ctrl.Result{}, err
		}
		// A cache behind its own create answers AlreadyExists, as the floor tolerates.
		if err := r.Create(ctx, pod); err != nil && !apierrors.IsAlreadyExists(err) {
			return ctrl.Result{}, err
		}
	}
	var stale []*corev1.Pod
	allReady := len(pods) == replicas
	deleting := false
	for ordinal := 0; ordinal < replicas; ordinal++ {
		p, ok := pods[ordinal]
		if !ok {
			continue
		}
		allReady = allReady && ready(p)
		deleting = deleting || p.DeletionTimestamp != nil
		if r.flagged(p) != owned {
			stale = append(stale, p)
		}
	}
	if len(stale) > 0 && allReady && !deleting {
		if err := r.Delete(ctx, stale[len(stale)-1]); client.IgnoreNotFound(err) != nil {
			return ctrl.Result{}, err
		}
	}
	phase := "Progressing"
	if allReady && len(stale) == 0 {
		phase = "Ready"
	}
	if current, _, _ := unstructured.NestedString(md.Object, "status", "phase"); current == phase {
		return ctrl.Result{}, nil
	}
	patch := client.RawPatch(types.MergePatchType, []byte(`{"status":{"phase":"`+phase+`"}}`))
	return ctrl.Result{}, r.Status().Patch(ctx, md, patch)
}

// owned reads the Setting: on unless its spec.value is "false".
func (r *reconciler) owned(ctx context.Context) (bool, error) {
	s := &unstructured.Unstructured{}
	s.SetGroupVersionKind(settingKind)
	if err := r.Get(ctx, r.setting, s); err != nil {
		return true, client.IgnoreNotFound(err)
	}
	value, _, _ := unstructured.NestedString(s.Object, "spec", "value")
	return value != "false", nil
}

func (r *reconciler) pod(md *unstructured.Unstructured, ordinal int, owned bool) (*corev1.Pod, error) {
	model, _, _ := unstructured.NestedString(md.Object, "spec", "model", "name")
	body := strings.ReplaceAll(r.templates[owned][ordinal], template, md.GetName())
	body = strings.ReplaceAll(body, templateModel, strconv.Quote(model))
	pod := &corev1.Pod{}
	if err := json.Unmarshal([]byte(body), pod); err != nil {
		return nil, err
	}
	pod.OwnerReferences[0].UID = md.GetUID()
	return pod, nil
}

func (r *reconciler) flagged(p *corev1.Pod) bool {
	return slices.Contains(p.Spec.Containers[0].Command, r.dtypeFlag)
}

func ready(p *corev1.Pod) bool {
	if p.DeletionTimestamp != nil {
		return false
	}
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodReady && c.Status == corev1.ConditionTrue {
			return true
		}
	}
	return false
}

func deployment() *unstructured.Unstructured {
	md := &unstructured.Unstructured{}
	md.SetGroupVersionKind(deploymentKind)
	return md
}

// readTemplates reads the Pod bodies the benchmark wrote: pods-owned.json and pods-unowned.json.
func readTemplates(dir string) (map[bool][]string, error) {
	templates := map[bool][]string{}
	for owned, file := range map[bool]string{true: "pods-owned.json", false: "pods-unowned.json"} {
		data, err := os.ReadFile(filepath.Join(dir, file))
		if err != nil {
			return nil, err
		}
		var pods []json.RawMessage
		if err := json.Unmarshal(data, &pods); err != nil {
			return nil, fmt.Errorf("%s: %w", file, err)
		}
		if len(pods) != replicas {
			return nil, fmt.Errorf("%s: %d Pods, want %d", file, len(pods), replicas)
		}
		for _, p := range pods {
			templates[owned] = append(templates[owned], string(p))
		}
	}
	return templates, nil
}

func main() {
	metrics := flag.String("metrics", "127.0.0.1:0", "where /metrics listens")
	templatesDir := flag.String("templates", "", "the folder holding pods-owned.json and pods-unowned.json")
	setting := flag.String("setting", "", "NAMESPACE/NAME of the Setting that turns the dtype flag on and off")
	managedBy := flag.String("managed-by", "", "KEY=VALUE: the label of the Pods this controller watches")
	ordinalLabel := flag.String("ordinal-label", "", "the label holding a Pod's ordinal")
	dtypeFlag := flag.String("flag", "", "the argument whose presence marks a Pod rendered with the Setting on")
	userAgent := flag.String("user-agent", "", "how the API server's audit log names this controller")
	workers := flag.Int("workers", 50, "concurrent reconciles (the Java Operator SDK's default thread count)")
	flag.Parse()
	if err := run(*metrics, *templatesDir, *setting, *managedBy, *ordinalLabel, *dtypeFlag, *userAgent, *workers); err != nil {
		fmt.Fprintln(os.Stderr, "kvcache-go-controller:", err)
		os.Exit(1)
	}
}

func run(metrics, templatesDir, setting, managedBy, ordinalLabel, dtypeFlag, userAgent string, workers int) error {
	// -kubeconfig is controller-runtime's own flag; its config leaves client-side rate limits off.
	config, err := ctrl.GetConfig()
	if err != nil {
		return err
	}
	config.UserAgent = userAgent
	templates, err := readTemplates(templatesDir)
	if err != nil {
		return err
	}
	settingNamespace, settingName, ok := strings.Cut(setting, "/")
	if !ok {
		return fmt.Errorf("-setting %q: want NAMESPACE/NAME", setting)
	}
	managed, err := labels.Parse(managedBy)
	if err != nil {
		return fmt.Errorf("-managed-by %q: %w", managedBy, err)
	}
	settingObject := &unstructured.Unstructured{}
	settingObject.SetGroupVersionKind(settingKind)
	mgr, err := ctrl.NewManager(config, ctrl.Options{
		Metrics: metricsserver.Options{BindAddress: metrics},
		// Reads of the unstructured ModelDeployments and Settings come from the informers, as a
		// typed operator's would; by default controller-runtime sends them to the API server.
		Client: client.Options{Cache: &client.CacheOptions{Unstructured: true}},
		Cache: cache.Options{ByObject: map[client.Object]cache.ByObject{
			&corev1.Pod{}: {Label: managed},
			settingObject: {Namespaces: map[string]cache.Config{settingNamespace: {}}},
		}},
	})
	if err != nil {
		return err
	}
	ctx := ctrl.SetupSignalHandler()
	if err := mgr.GetFieldIndexer().IndexField(ctx, &corev1.Pod{}, ownerIndex, func(o client.Object) []string {
		var names []string
		for _, ref := range o.GetOwnerReferences() {
			if ref.Kind == deploymentKind.Kind {
				names = append(names, ref.Name)
			}
		}
		return names
	}); err != nil {
		return err
	}
	r := &reconciler{
		Client:       mgr.GetClient(),
		templates:    templates,
		setting:      types.NamespacedName{Namespace: settingNamespace, Name: settingName},
		ordinalLabel: ordinalLabel,
		dtypeFlag:    dtypeFlag,
	}
	everyDeployment := handler.EnqueueRequestsFromMapFunc(func(ctx context.Context, _ client.Object) []ctrl.Request {
		list := &unstructured.UnstructuredList{}
		list.SetGroupVersionKind(deploymentKind.GroupVersion().WithKind("ModelDeploymentList"))
		if err := mgr.GetClient().List(ctx, list); err != nil {
			return nil
		}
		requests := make([]ctrl.Request, 0, len(list.Items))
		for _, md := range list.Items {
			requests = append(requests, ctrl.Request{NamespacedName: types.NamespacedName{Namespace: md.GetNamespace(), Name: md.GetName()}})
		}
		return requests
	})
	err = ctrl.NewControllerManagedBy(mgr).
		Named("yardstick").
		For(deployment()).
		Owns(&corev1.Pod{}).
		Watches(settingObject, everyDeployment, builder.WithPredicates(predicate.NewPredicateFuncs(func(o client.Object) bool {
			return o.GetName() == settingName
		}))).
		WithOptions(controller.Options{MaxConcurrentReconciles: workers}).
		Complete(r)
	if err != nil {
		return err
	}
	return mgr.Start(ctx)
}
