/**
 * Admission logic, pure: an AdmissionReview in, an AdmissionReview out, no HTTP and no client. One
 * {@link ai.gpustack.kvcache.admission.Rule} per {@link ai.gpustack.kvcache.admission.Route}, and
 * {@link ai.gpustack.kvcache.admission.Admission} routing between them. Rules read cluster state
 * through a {@link ai.gpustack.kvcache.cluster.ClusterView}, attach Pods through the same {@link
 * ai.gpustack.kvcache.attach.AttachmentResolver} the operator renders with, and word every refusal
 * and warning from the {@link ai.gpustack.kvcache.api.Message} catalog.
 */
package ai.gpustack.kvcache.admission;
