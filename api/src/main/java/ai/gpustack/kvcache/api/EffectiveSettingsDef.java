package ai.gpustack.kvcache.api;

import org.immutables.value.Value;

/** The Settings in force at one moment, already read with their rules. */
@Value.Immutable
interface EffectiveSettingsDef {
  /** The defaults: dtype owned, spelling check enforced. */
  EffectiveSettings DEFAULTS =
      EffectiveSettings.builder()
          .kvCacheDtypeOwned(true)
          .spellingCheck(SpellingCheck.Enforce)
          .build();

  boolean kvCacheDtypeOwned();

  SpellingCheck spellingCheck();
}
