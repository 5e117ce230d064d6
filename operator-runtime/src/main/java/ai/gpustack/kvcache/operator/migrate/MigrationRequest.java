package ai.gpustack.kvcache.operator.migrate;

import java.util.Optional;

/**
 * What {@code kvcache migrate} was asked: move the workloads of Binding {@code namespace/name} to a
 * new Binding declaring {@code dtype}. Absent names are derived (or read from a migration already
 * recorded on the Binding).
 */
public record MigrationRequest(
    String namespace,
    String name,
    String dtype,
    Optional<String> domain,
    Optional<String> newBinding,
    Optional<Strategy> strategy,
    boolean includeInjected,
    boolean settingOffWhileMigrating) {}
