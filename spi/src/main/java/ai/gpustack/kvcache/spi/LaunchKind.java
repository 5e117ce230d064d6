package ai.gpustack.kvcache.spi;

/** How a container starts its process, as far as its argv shows. */
public enum LaunchKind {
  /** A program run directly: {@code vllm serve ...}. */
  EXECUTABLE,
  /** A Python module: {@code python3 -m sglang.launch_server ...}. */
  PYTHON_MODULE,
  /** A Python file: {@code python3 serve.py ...}; its arguments may never reach the engine. */
  PYTHON_FILE,
  /**
   * A shell running a command string: {@code sh -c "..."}; appended args never reach the engine.
   */
  SHELL,
  /** A shell script: {@code ./start.sh ...}; whether it forwards its args is unknown. */
  SCRIPT,
  /** No argv to look at. */
  UNKNOWN
}
