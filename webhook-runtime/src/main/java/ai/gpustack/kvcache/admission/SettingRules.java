package ai.gpustack.kvcache.admission;

import static ai.gpustack.kvcache.api.Quoting.quote;

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
final class SettingRules {
  private final ObjectReader reader;

  SettingRules(ObjectReader reader) {
    this.reader = reader;
  }

  Decision decide(Request request) {
    if (!request.isCreate() && !request.isUpdate()) {
      return Decision.allow(List.of());
    }
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
          Refusal.SETTING_UNKNOWN.detail(
              quote(name),
              Settings.catalog().stream()
                  .map(SettingDefinition::name)
                  .collect(Collectors.joining(", "))));
    }
    if (!Settings.NAMESPACE.equals(namespace)) {
      problems.invalid(
          "metadata.namespace", namespace, Refusal.SETTING_NAMESPACE.detail(Settings.NAMESPACE));
    }
    if (definition.isPresent() && setting.getSpec() != null) {
      setting
          .getSpec()
          .value()
          .flatMap(v -> definition.get().refusal(v).map(r -> new String[] {v, r}))
          .ifPresent(
              bad -> problems.invalid("spec.value", bad[0], Refusal.SETTING_VALUE.detail(bad[1])));
    }
    return Admission.verdict(request, problems, List.of());
  }
}
