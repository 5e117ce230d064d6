/**
 * Admission logic, pure: an AdmissionReview in, an AdmissionReview out, no HTTP and no client. It
 * reads cluster state through a {@link ai.gpustack.kvcache.admission.ClusterView} that the webhook
 * backs with informers, tests back with memory and the CLI backs with files. Every verdict is
 * worded from the {@link ai.gpustack.kvcache.admission.Refusal} catalog, so the webhook, the
 * operator and the CLI say the same thing.
 */
package ai.gpustack.kvcache.admission;
