/**
 * {@code kvcache migrate}: moving every workload of a Binding to a new Binding with another dtype
 * as a reviewed plan. {@link Planner} turns a snapshot of the cluster into a {@link Plan} without
 * touching anything, running each object the plan would write through the webhook's own rules;
 * {@link Migrator} carries it out step by step, recording its progress on the old Binding so that a
 * run killed at any point and run again resumes where it stopped.
 */
package ai.gpustack.kvcache.operator.migrate;
