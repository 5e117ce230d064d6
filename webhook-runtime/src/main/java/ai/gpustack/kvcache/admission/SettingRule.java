package ai.gpustack.kvcache.admission;

import static ai.gpustack.kvcache.api.Quoting.quote;

import ai.gpustack.kvcache.api.Message;
import ai.gpustack.kvcache.api.Problems;
import ai.gpustack.kvcache.api.SettingDefinition;
import ai.gpustack.kvcache.api.Settings;
import ai.gpustack.kvcache.resources.Setting;
import java.util.List;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * Setting admission: a catalog name, in the system namespace, with a value of the Setting's kind.
 */
final class SettingRule implements Rule {
  private final ObjectReader reader;

  SettingRule(ObjectReader reader) {
    this.reader = reader;
  }

  @Override
  public Decision decide(Request request) {
    Setting setting = reader.read(request.object(), Setting.class);
    Problems problems = Problems.create();
    String name =
        setting.getMetadata() == null || setting.getMetadata().getName() == null
            ? request.name()
            : setting.getMetadata().getName();
    String namespace =
        setting.getMetadata() == null || setting.getMetadata().getNamespace() == null
            ? request.namespace()
            : setting.getMetadata().getNamespace();
    Optional<SettingDefinition> definition = Settings.find(name);
    if (definition.isEmpty()) {
      problems.notSupported(
          "metadata.name",
          name,
          Message.SETTING_UNKNOWN.detail(
              quote(name),
              Settings.catalog().stream()
                  .map(SettingDefinition::name)
                  .collect(Collectors.joining(", "))));
    }
    if (!Settings.NAMESPACE.equals(namespace)) {
      problems.invalid(
          "metadata.namespace", namespace, Message.SETTING_NAMESPACE.detail(Settings.NAMESPACE));
    }
    if (definition.isPresent() && setting.getSpec() != null) {
      setting
          .getSpec()
          .value()
          .flatMap(v -> definition.get().refusal(v).map(r -> new String[] {v, r}))
          .ifPresent(
              bad -> problems.invalid("spec.value", bad[0], Message.SETTING_VALUE.detail(bad[1])));
    }
    return Decision.of(request.subject(), problems, List.of());
  }
}
