package ai.gpustack.kvcache.spi;

import org.immutables.value.Value;

/**
 * How an engine's command-line parser reads an option: which spellings it takes as the same flag.
 * The flag reader applies these rules in the parser's own order. Aliases ({@link
 * FlagSpec#aliases()}) are read in the same forms as canonical names, except that only long ones
 * are abbreviated or have their underscores rewritten.
 */
@Value.Immutable
abstract class ArgvDialectDef {
  /** Who parses, for docs and messages: {@code Python argparse}. */
  public abstract String parser();

  /**
   * {@code --flag=value} (and {@code -f=value} for a short alias) is read as the flag with an
   * inline value. Without it the whole token is one unknown option, which the engine refuses
   * (llama.cpp: {@code error: invalid argument: --cache-type-k=q8_0}).
   */
  public abstract boolean inlineValues();

  /**
   * A short alias followed directly by its value ({@code -ctkq4_0}) is read as the alias with that
   * value, as getopt reads {@code -ofile}. Off unless the engine's parser does it.
   */
  @Value.Default
  public boolean attachedShortValues() {
    return false;
  }

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

  /**
   * A unique prefix of a long flag is read as the flag and an ambiguous one is refused (argparse).
   * Without it the parser takes exact names only.
   */
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
