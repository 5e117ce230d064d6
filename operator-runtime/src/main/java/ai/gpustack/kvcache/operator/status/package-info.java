/**
 * What the operator reports: conditions read off a rendering and off the replicas' observed dtype,
 * the status patch written only when it changes, and the Events it records. The reconcilers decide;
 * this package words and writes.
 */
package ai.gpustack.kvcache.operator.status;
