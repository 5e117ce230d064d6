package ai.gpustack.kvcache.sandbox;

import com.fasterxml.jackson.databind.JsonNode;
import dev.cel.common.CelValidationException;
import dev.cel.common.types.SimpleType;
import dev.cel.compiler.CelCompiler;
import dev.cel.compiler.CelCompilerFactory;
import dev.cel.extensions.CelExtensions;
import dev.cel.parser.CelStandardMacro;
import dev.cel.runtime.CelEvaluationException;
import dev.cel.runtime.CelRuntime;
import dev.cel.runtime.CelRuntimeFactory;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The CRDs' {@code x-kubernetes-validations} rules, evaluated with cel-java and the strings
 * extension (the API server's CEL environment for what these rules use): {@code self} and, for a
 * transition rule, {@code oldSelf}. Compiled programs are cached; thread-safe.
 */
final class Cel {
  private static final CelCompiler COMPILER =
      CelCompilerFactory.standardCelCompilerBuilder()
          .setStandardMacros(CelStandardMacro.STANDARD_MACROS)
          .addLibraries(CelExtensions.strings())
          .addVar("self", SimpleType.DYN)
          .addVar("oldSelf", SimpleType.DYN)
          .build();
  private static final CelRuntime RUNTIME =
      CelRuntimeFactory.standardCelRuntimeBuilder().addLibraries(CelExtensions.strings()).build();
  private static final Map<String, CelRuntime.Program> PROGRAMS = new ConcurrentHashMap<>();

  private Cel() {}

  /** Whether {@code rule} mentions {@code oldSelf}: a transition rule, checked on update only. */
  static boolean transition(String rule) {
    return rule.contains("oldSelf");
  }

  /**
   * Whether {@code rule} holds for {@code self} (and {@code oldSelf}); a rule that does not compile
   * or evaluate to a boolean fails, as the API server refuses what it cannot check.
   */
  static boolean holds(String rule, JsonNode self, JsonNode oldSelf) {
    try {
      CelRuntime.Program program =
          PROGRAMS.computeIfAbsent(
              rule,
              r -> {
                try {
                  return RUNTIME.createProgram(COMPILER.compile(r).getAst());
                } catch (CelValidationException | CelEvaluationException e) {
                  throw new IllegalArgumentException("rule does not compile: " + r, e);
                }
              });
      Map<String, Object> vars = new HashMap<>();
      vars.put("self", value(self));
      if (oldSelf != null) {
        vars.put("oldSelf", value(oldSelf));
      }
      return Boolean.TRUE.equals(program.eval(vars));
    } catch (CelEvaluationException | IllegalArgumentException e) {
      return false;
    }
  }

  /** JSON as the plain values CEL evaluates: maps, lists, longs, doubles, strings, booleans. */
  static Object value(JsonNode node) {
    if (node.isObject()) {
      Map<String, Object> map = new HashMap<>();
      node.properties().forEach(e -> map.put(e.getKey(), value(e.getValue())));
      return map;
    }
    if (node.isArray()) {
      List<Object> list = new ArrayList<>();
      node.forEach(n -> list.add(value(n)));
      return list;
    }
    if (node.isIntegralNumber()) {
      return node.asLong();
    }
    if (node.isNumber()) {
      return node.asDouble();
    }
    if (node.isBoolean()) {
      return node.asBoolean();
    }
    return node.isNull() ? dev.cel.common.values.NullValue.NULL_VALUE : node.asText();
  }
}
