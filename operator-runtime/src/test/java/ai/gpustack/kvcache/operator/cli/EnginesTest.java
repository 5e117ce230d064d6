package ai.gpustack.kvcache.operator.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import ai.gpustack.kvcache.spi.ArgvDialect;
import ai.gpustack.kvcache.spi.AttachmentRequest;
import ai.gpustack.kvcache.spi.CacheAttachment;
import ai.gpustack.kvcache.spi.DtypeSpellings;
import ai.gpustack.kvcache.spi.Engine;
import ai.gpustack.kvcache.spi.EngineRegistry;
import ai.gpustack.kvcache.spi.FlagInventory;
import ai.gpustack.kvcache.spi.FlagSpec;
import ai.gpustack.kvcache.spi.SpellingTable;
import ai.gpustack.kvcache.spi.VersionRange;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Third-party engine jars reach {@code kvcache}, which {@code java -jar} runs without a -cp. */
class EnginesTest {
  @TempDir Path dir;

  /** Registered only by the jar the test writes, never on the test classpath's own services. */
  public static final class Plugged implements Engine {
    @Override
    public String id() {
      return "plugged";
    }

    @Override
    public String artifact() {
      return "com.example:plugged";
    }

    @Override
    public SpellingTable dtypeSpellings() {
      return SpellingTable.builder().addEntries(DtypeSpellings.of(null, null, "t", "auto")).build();
    }

    @Override
    public ArgvDialect dialect() {
      return ArgvDialect.click();
    }

    @Override
    public List<FlagInventory> flagInventories() {
      return List.of(
          FlagInventory.builder()
              .versions(VersionRange.any())
              .source("t")
              .addFlags(FlagSpec.value(KV_CACHE_DTYPE))
              .build());
    }

    @Override
    public List<String> baseArgv(String model) {
      return List.of("plugged", model);
    }

    @Override
    public int defaultPort() {
      return 8000;
    }

    @Override
    public CacheAttachment attachment(AttachmentRequest request) {
      return CacheAttachment.builder().build();
    }

    @Override
    public Set<String> ownedFlags() {
      return Set.of();
    }

    @Override
    public Set<String> ownedEnv() {
      return Set.of();
    }

    @Override
    public Set<String> launchPrograms() {
      return Set.of("plugged");
    }
  }

  private Path engineJar(Path folder) throws Exception {
    Files.createDirectories(folder);
    Path jar = folder.resolve("engine-plugged.jar");
    try (OutputStream file = Files.newOutputStream(jar);
        JarOutputStream out = new JarOutputStream(file)) {
      out.putNextEntry(new JarEntry("META-INF/services/" + Engine.class.getName()));
      out.write((Plugged.class.getName() + "\n").getBytes(StandardCharsets.UTF_8));
      out.closeEntry();
    }
    return jar;
  }

  private static boolean plugged(ClassLoader loader) {
    return EngineRegistry.load(loader).find("plugged").isPresent();
  }

  @Test
  void without_jars_only_the_kvcache_jars_own_engines_are_registered() {
    assertThat(plugged(Engines.loader(Map.of(), Optional.empty()))).isFalse();
    assertThat(plugged(Engines.loader(Map.of(), Optional.of(dir.resolve("engines"))))).isFalse();
  }

  @Test
  void kvcache_engines_names_jars_or_folders_of_them() throws Exception {
    Path jar = engineJar(dir.resolve("lib"));
    assertThat(plugged(Engines.loader(Map.of(Engines.ENV, jar.toString()), Optional.empty())))
        .isTrue();
    assertThat(
            plugged(
                Engines.loader(Map.of(Engines.ENV, ":" + dir.resolve("lib")), Optional.empty())))
        .isTrue();
  }

  @Test
  void the_engines_folder_beside_the_jar_is_read_when_the_variable_is_unset() throws Exception {
    engineJar(dir.resolve("engines"));
    assertThat(plugged(Engines.loader(Map.of(), Optional.of(dir.resolve("engines"))))).isTrue();
    assertThat(
            plugged(
                Engines.loader(
                    Map.of(Engines.ENV, engineJar(dir.resolve("other")).toString()),
                    Optional.of(dir.resolve("missing")))))
        .as("the variable wins over the folder")
        .isTrue();
  }

  @Test
  void an_entry_that_is_no_jar_nor_folder_is_refused_naming_it_and_the_fix() {
    assertThatThrownBy(
            () ->
                Engines.loader(
                    Map.of(Engines.ENV, dir.resolve("nope.jar").toString()), Optional.empty()))
        .hasMessageStartingWith("KVCACHE_ENGINES: \"" + dir.resolve("nope.jar") + "\" is neither")
        .hasMessageContaining("name the engine module's jar");
  }
}
