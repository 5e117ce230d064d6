/** The reference pages under {@code docs/} that are generated from code, never typed. */
package ai.gpustack.kvcache.operator.docs;
