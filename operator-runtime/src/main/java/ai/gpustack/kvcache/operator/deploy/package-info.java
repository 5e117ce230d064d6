/**
 * What the reference operator needs to be installed: its permissions, and the manifests under
 * {@code deploy/kustomize} generated from them and from the webhook configurations.
 */
package ai.gpustack.kvcache.operator.deploy;
