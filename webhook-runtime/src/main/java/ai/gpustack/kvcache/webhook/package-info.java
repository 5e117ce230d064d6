/**
 * The admission webhook as a process: an HTTPS server (TLS 1.2/1.3, certificates reloaded from PEM
 * files as they rotate) with one path per route plus health, readiness and Prometheus metrics, and
 * the generated webhook configurations.
 */
package ai.gpustack.kvcache.webhook;
