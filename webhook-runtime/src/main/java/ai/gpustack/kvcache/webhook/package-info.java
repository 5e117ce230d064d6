/**
 * The admission webhook as a process: an HTTPS server (TLS 1.2/1.3, certificates reloaded from PEM
 * files as they rotate) with one path per handler plus health, readiness and Prometheus metrics; a
 * {@link ai.gpustack.kvcache.admission.ClusterView} backed by informers; the generated webhook
 * configurations; and manifest reading for the offline tools.
 */
package ai.gpustack.kvcache.webhook;
