package ai.gpustack.kvcache.spi;

/** How many values a flag takes after it. */
public enum FlagArity {
  /** A switch such as {@code --enable-hierarchical-cache}. */
  NONE,
  /** Exactly one value. */
  ONE,
  /** One or more values, up to the next option (argparse {@code nargs="+"}). */
  ONE_OR_MORE,
  /** None or more values, up to the next option (argparse {@code nargs="*"}). */
  ZERO_OR_MORE
}
