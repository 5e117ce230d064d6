package ai.gpustack.kvcache.spi;

import org.immutables.value.Value;

/**
 * How an engine's command-line parser reads a long option: which spellings it takes as the same
 * flag. The flag reader applies these rules in the parser's own order.
 */
@Value.Immutable
abstract class ArgvDialectDef {
  /** Who parses, for docs and messages: {@code Python argparse}. */
  public abstract String parser();

  /** {@code --flag=value} is read as the flag with an inline value. */
  public abstract boolean inlineValues();

  /**
   * Underscores between the leading {@code --} and the first {@code .} read as dashes (vLLM's
   * FlexibleArgumentParser: {@code --kv_cache_dtype} is {@code --kv-cache-dtype}).
   */
  public abstract boolean underscoresAsDashes();

  /**
   * {@code --flag.member} is read as the flag with a nested value (vLLM's dotted JSON arguments),
   * moved with its value to the end of the argv before parsing ({@link FlagReader#asParsed}).
   */
  public abstract boolean dottedMembers();

  /** A unique prefix of a flag is read as the flag and an ambiguous one is refused (argparse). */
  public abstract boolean abbreviations();

  /** A bare {@code --} ends the options: everything after it is positional. */
  public abstract boolean doubleDashEndsOptions();

  /** Plain Python {@code argparse} with {@code allow_abbrev} on: SGLang's launcher. */
  public static ArgvDialect argparse() {
    return ArgvDialect.builder()
        .parser("Python argparse")
        .inlineValues(true)
        .underscoresAsDashes(false)
        .dottedMembers(false)
        .abbreviations(true)
        .doubleDashEndsOptions(true)
        .build();
  }

  /** vLLM's FlexibleArgumentParser: argparse plus underscore and dotted spellings. */
  public static ArgvDialect vllmFlexibleArgparse() {
    return ArgvDialect.builder()
        .parser("vLLM FlexibleArgumentParser (Python argparse)")
        .inlineValues(true)
        .underscoresAsDashes(true)
        .dottedMembers(true)
        .abbreviations(true)
        .doubleDashEndsOptions(true)
        .build();
  }

  /** Python click: exact names only, {@code --flag=value} allowed, no abbreviation. */
  public static ArgvDialect click() {
    return ArgvDialect.builder()
        .parser("Python click")
        .inlineValues(true)
        .underscoresAsDashes(false)
        .dottedMembers(false)
        .abbreviations(false)
        .doubleDashEndsOptions(true)
        .build();
  }
}
