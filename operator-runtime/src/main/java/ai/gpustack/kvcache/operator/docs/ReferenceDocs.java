package ai.gpustack.kvcache.operator.docs;

import ai.gpustack.kvcache.api.Message;
import ai.gpustack.kvcache.api.SettingDefinition;
import ai.gpustack.kvcache.api.SettingKind;
import ai.gpustack.kvcache.api.Settings;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * {@code docs/troubleshooting.md} from the message catalog every refusal and warning is worded
 * from, and {@code docs/settings.md} from the Settings catalog. {@code ReferenceDocsTest} fails
 * while a committed page differs.
 */
public final class ReferenceDocs {
  private ReferenceDocs() {}

  /** Every page, by its path under {@code docs/}. */
  public static Map<String, String> pages() {
    Map<String, String> pages = new TreeMap<>();
    pages.put("troubleshooting.md", troubleshooting());
    pages.put("settings.md", settings());
    return pages;
  }

  static String troubleshooting() {
    StringBuilder out = new StringBuilder();
    out.append("# Troubleshooting: every refusal and warning\n\n");
    out.append(generated("the message catalog (`Message` in api)"));
    out.append(
        "Every refusal and warning the webhook answers, every reason the operator gives for"
            + " attaching nothing or holding a rollout (a `False` condition and its event), and"
            + " what `kvcache review`, `kvcache render` and `kvcache preflight` quote of them is"
            + " one of these. `<…>` stands for the value filled in. Refusals name the field the"
            + " way the API server does (`spec.roles[0].extraArgs[1]: Invalid value: …`) and"
            + " leave the object unchanged.\n\n");
    out.append(
        "If the cluster has no webhook registered, nothing here is answered at admission: the"
            + " CRD's CEL rules still keep Binding and deployment identity fields, and the"
            + " operator reports Pods it never injected on their Binding"
            + " (`InjectionRecorded=False`) and as `NotInjected` events.\n\n");
    String section = "";
    for (Message r : Message.values()) {
      String next = section(r);
      if (!next.equals(section)) {
        section = next;
        out.append("## ").append(section).append("\n\n");
      }
      out.append("### `")
          .append(r.name().toLowerCase(Locale.ROOT).replace('_', '-'))
          .append("`\n\n");
      out.append("> ").append(r.template().replace("%s", "<…>")).append("\n\n");
      out.append("- **Cause:** ").append(r.cause()).append('\n');
      out.append("- **Fix:** ").append(r.fix()).append("\n\n");
    }
    return out.toString();
  }

  private static String section(Message r) {
    String name = r.name();
    if (name.startsWith("BINDING") || name.startsWith("QUANTITY")) {
      return "KVCachePoolBinding";
    }
    if (name.startsWith("POOL") || name.startsWith("BACKEND")) {
      return "KVCachePool and KVCacheBackend";
    }
    if (name.startsWith("DEPLOYMENT")) {
      return "ModelDeployment";
    }
    if (name.startsWith("ATTACH") || name.startsWith("DTYPE") || name.startsWith("ENGINE")) {
      return "Attaching: deployments and injected Pods alike";
    }
    if (name.startsWith("POD")) {
      return "Injected Pods";
    }
    if (name.startsWith("SETTING")) {
      return "Settings";
    }
    return "Any object";
  }

  static String settings() {
    StringBuilder out = new StringBuilder();
    out.append("# Settings reference\n\n");
    out.append(generated("the Settings catalog (`Settings` in api)"));
    out.append(
        "Settings are `Setting` objects (group `gpustack.ai/v1`, short name `set`) in namespace `"
            + Settings.NAMESPACE
            + "`. The operator creates each missing one with its default at start and never"
            + " overwrites one that exists; a change takes effect at once (deployments re-render"
            + " without waiting for another event). The webhook refuses a value the Setting does"
            + " not take. Change one with:\n\n");
    out.append("```bash\n")
        .append("kubectl -n ")
        .append(Settings.NAMESPACE)
        .append(" patch setting ")
        .append(Settings.KV_CACHE_DTYPE_OWNED.name())
        .append(" --type merge -p '{\"spec\":{\"value\":\"false\"}}'\n")
        .append("```\n\n");
    for (SettingDefinition d : Settings.catalog()) {
      out.append("## `").append(d.name()).append("`\n\n");
      out.append("| Kind | Default | Values |\n|---|---|---|\n");
      out.append("| ")
          .append(d.kind() == SettingKind.BOOLEAN ? "boolean" : "enum")
          .append(" | `")
          .append(d.defaultValue())
          .append("` | ")
          .append(
              d.kind() == SettingKind.BOOLEAN
                  ? "`true` or `false` (also `1 t T TRUE True`, `0 f F FALSE False`)"
                  : "`" + String.join("` `", d.allowedValues()) + "`")
          .append(" |\n\n");
      out.append(d.description()).append("\n\n");
    }
    return out.toString();
  }

  private static String generated(String from) {
    return "<!-- Generated from "
        + from
        + " by ReferenceDocs; regenerate with -Dkvcache.golden.write=true. -->\n\n";
  }
}
