// A minimal Go admission webhook for WebhookLoadBenchmark: what a Go operator's Pod-injection
// handler does at least (decode the review, look the Pod's Binding up in a map, answer a JSON
// Patch), on Go's standard library only (net/http, crypto/tls, encoding/json).
//
// usage: kvcache-go-webhook ADDR CERT KEY BINDINGS PATCH
//
// BINDINGS is a JSON object from "namespace/name" to {"dtype": ..., "domain": ...}; PATCH is the
// Java webhook's answer patch for the benchmark's Pod with the Binding's values replaced by
// {{dtype}} and {{domain}}, so both answer patches of one size and shape.
package main

import (
	"crypto/tls"
	"encoding/json"
	"log"
	"net/http"
	"os"
	"strings"
)

type binding struct {
	Dtype  string `json:"dtype"`
	Domain string `json:"domain"`
}

type review struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Request    struct {
		UID       string `json:"uid"`
		Namespace string `json:"namespace"`
		Object    struct {
			Metadata struct {
				Name        string            `json:"name"`
				Annotations map[string]string `json:"annotations"`
			} `json:"metadata"`
			Spec struct {
				Containers []struct {
					Name    string   `json:"name"`
					Command []string `json:"command"`
					Args    []string `json:"args"`
				} `json:"containers"`
			} `json:"spec"`
		} `json:"object"`
	} `json:"request"`
}

type answer struct {
	APIVersion string   `json:"apiVersion"`
	Kind       string   `json:"kind"`
	Response   response `json:"response"`
}

type response struct {
	UID       string  `json:"uid"`
	Allowed   bool    `json:"allowed"`
	Status    *status `json:"status,omitempty"`
	PatchType string  `json:"patchType,omitempty"`
	Patch     []byte  `json:"patch,omitempty"`
}

type status struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

type operation struct {
	Op    string          `json:"op"`
	Path  string          `json:"path"`
	Value json.RawMessage `json:"value,omitempty"`
}

func main() {
	if len(os.Args) != 6 {
		log.Fatalf("usage: %s ADDR CERT KEY BINDINGS PATCH", os.Args[0])
	}
	bindings := map[string]binding{}
	read(os.Args[4], &bindings)
	var template []operation
	read(os.Args[5], &template)

	http.HandleFunc("/no-op", func(w http.ResponseWriter, r *http.Request) {
		var rv review
		if err := json.NewDecoder(r.Body).Decode(&rv); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		reply(w, answer{"admission.k8s.io/v1", "AdmissionReview", response{UID: rv.Request.UID, Allowed: true}})
	})
	http.HandleFunc("/mutate/pods", func(w http.ResponseWriter, r *http.Request) {
		var rv review
		if err := json.NewDecoder(r.Body).Decode(&rv); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		req := rv.Request
		name := req.Object.Metadata.Annotations["kvcache.gpustack.ai/binding"]
		b, found := bindings[req.Namespace+"/"+name]
		if !found || len(req.Object.Spec.Containers) == 0 {
			reply(w, answer{"admission.k8s.io/v1", "AdmissionReview", response{
				UID: req.UID, Status: &status{403, "no Binding " + req.Namespace + "/" + name}}})
			return
		}
		values := strings.NewReplacer("{{dtype}}", b.Dtype, "{{domain}}", b.Domain)
		ops := make([]operation, len(template))
		for i, op := range template {
			ops[i] = operation{op.Op, op.Path, json.RawMessage(values.Replace(string(op.Value)))}
		}
		patch, err := json.Marshal(ops)
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		reply(w, answer{"admission.k8s.io/v1", "AdmissionReview", response{
			UID: req.UID, Allowed: true, PatchType: "JSONPatch", Patch: patch}})
	})
	server := &http.Server{
		Addr:      os.Args[1],
		TLSConfig: &tls.Config{MinVersion: tls.VersionTLS13},
	}
	log.Printf("listening on https://%s", os.Args[1])
	log.Fatal(server.ListenAndServeTLS(os.Args[2], os.Args[3]))
}

func read(path string, into any) {
	data, err := os.ReadFile(path)
	if err != nil {
		log.Fatal(err)
	}
	if err := json.Unmarshal(data, into); err != nil {
		log.Fatalf("%s: %v", path, err)
	}
}

func reply(w http.ResponseWriter, a answer) {
	w.Header().Set("Content-Type", "application/json")
	if err := json.NewEncoder(w).Encode(a); err != nil {
		log.Print(err)
	}
}
