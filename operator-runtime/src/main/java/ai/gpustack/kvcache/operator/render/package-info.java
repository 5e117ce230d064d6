/**
 * What a ModelDeployment's Pods should look like, as a pure function of the deployment, the cluster
 * state it names and the Settings: no client, no clock. The reconciler, {@code kvcache render} and
 * {@code preflight} all call it.
 */
package ai.gpustack.kvcache.operator.render;
