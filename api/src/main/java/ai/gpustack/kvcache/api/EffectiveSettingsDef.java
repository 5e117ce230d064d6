package ai.gpustack.kvcache.api;

import org.immutables.value.Value;

/** The Settings in force at one moment, already read with their rules. */
@Value.Immutable
interface EffectiveSettingsDef {
  /** The defaults, as every Setting missing reads. */
  EffectiveSettings DEFAULTS = Settings.effective(java.util.Map.of());

  boolean kvCacheDtypeOwned();

  SpellingCheck spellingCheck();

  /** The Pod Security Standard operator-built Pods meet. */
  PodSecurity podSecurity();

  /** The registries deployments' images may come from; empty allows any. */
  java.util.List<String> imageRegistries();

  /** The most replicas one deployment's roles may ask for together. */
  int maxReplicas();
}
