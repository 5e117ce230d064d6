package ai.gpustack.kvcache.tck;

import ai.gpustack.kvcache.api.ReuseDomain;
import ai.gpustack.kvcache.api.RoleKind;
import ai.gpustack.kvcache.spi.ArgGroup;
import ai.gpustack.kvcache.spi.AttachmentRequest;
import ai.gpustack.kvcache.spi.CacheAttachment;
import ai.gpustack.kvcache.spi.Engine;
import ai.gpustack.kvcache.spi.FlagInventory;
import java.util.ArrayList;
import java.util.List;

/** Checks of a module's declarations against each other, worded as the kit reports them. */
final class KitChecks {
  private KitChecks() {}

  /**
   * Every flag an attachment renders (connector args, defaulted args) that the inventory of a
   * version range lacks, as {@code --flag, rendered by attachment(request).defaultedArgs() for a
   * Server role, is not in flagInventories() for >=0.2.14 <0.4.1}.
   */
  static List<String> renderedFlagsMissingFromInventories(Engine engine, String dtype) {
    List<String> missing = new ArrayList<>();
    for (FlagInventory inventory : engine.flagInventories()) {
      for (RoleKind kind : RoleKind.values()) {
        CacheAttachment attachment =
            engine.attachment(
                AttachmentRequest.builder()
                    .roleKind(kind)
                    .clientEndpoint("mooncake-master.kv.svc:50051")
                    .domain(ReuseDomain.builder().name("team-a").blockSize(16).dtype(dtype).build())
                    .tenant("team-a")
                    .build());
        for (String token : attachment.connectorArgs()) {
          String flag = token.contains("=") ? token.substring(0, token.indexOf('=')) : token;
          if (flag.startsWith("--") && inventory.flag(flag).isEmpty()) {
            missing.add(line(flag, "connectorArgs()", kind, inventory));
          }
        }
        for (ArgGroup group : attachment.defaultedArgs()) {
          if (inventory.flag(group.flag()).isEmpty()) {
            missing.add(line(group.flag(), "defaultedArgs()", kind, inventory));
          }
        }
      }
    }
    return missing.stream().distinct().toList();
  }

  private static String line(String flag, String part, RoleKind kind, FlagInventory inventory) {
    return flag
        + ", rendered by attachment(request)."
        + part
        + " for a "
        + kind
        + " role, is not in flagInventories() for "
        + inventory.versions();
  }
}
