package ai.gpustack.kvcache.operator.cli;

import ai.gpustack.kvcache.api.Quoting;
import ai.gpustack.kvcache.spi.EngineRegistry;
import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.MalformedURLException;
import java.net.URISyntaxException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;
import picocli.CommandLine;

/**
 * The engines a {@code kvcache} command runs with: the modules in its own jar, plus third-party
 * engine jars. {@code java -jar} ignores {@code -cp}, so those come from {@code KVCACHE_ENGINES}
 * (folders of jars or jars, separated as on a classpath) or, when it is unset, from the {@code
 * engines} folder beside {@code kvcache.jar}.
 */
final class Engines {
  static final String ENV = "KVCACHE_ENGINES";
  static final String FOLDER = "engines";

  private Engines() {}

  /**
   * The registry for {@code command}; a {@code KVCACHE_ENGINES} entry that is missing is refused.
   */
  static EngineRegistry load(CommandLine command) {
    try {
      return EngineRegistry.load(loader(System.getenv(), besideJar()));
    } catch (IllegalArgumentException e) {
      throw new CommandLine.ParameterException(command, e.getMessage(), e);
    }
  }

  /**
   * A class loader over the jars {@code env}'s {@code KVCACHE_ENGINES} names or, when unset, the
   * ones in {@code folder}; this class's own loader when there are none.
   */
  static ClassLoader loader(Map<String, String> env, Optional<Path> folder) {
    ClassLoader own = Engines.class.getClassLoader();
    String named = env.get(ENV);
    List<Path> jars = new ArrayList<>();
    if (named != null && !named.isBlank()) {
      for (String entry : named.split(File.pathSeparator)) {
        if (!entry.isBlank()) {
          jars.addAll(jars(Path.of(entry.trim()), ENV));
        }
      }
    } else if (folder.isPresent() && Files.isDirectory(folder.get())) {
      jars.addAll(jars(folder.get(), "the engines folder"));
    }
    if (jars.isEmpty()) {
      return own;
    }
    List<URL> urls = new ArrayList<>();
    for (Path jar : jars) {
      try {
        urls.add(jar.toUri().toURL());
      } catch (MalformedURLException e) {
        throw new IllegalArgumentException(ENV + ": " + Quoting.quote(jar.toString()), e);
      }
    }
    return new URLClassLoader(urls.toArray(URL[]::new), own);
  }

  /** {@code entry} itself when it is a jar, the jars directly in it when it is a folder. */
  private static List<Path> jars(Path entry, String where) {
    if (Files.isRegularFile(entry) && entry.toString().endsWith(".jar")) {
      return List.of(entry);
    }
    if (!Files.isDirectory(entry)) {
      throw new IllegalArgumentException(
          where
              + ": "
              + Quoting.quote(entry.toString())
              + " is neither a folder of engine jars nor a .jar file; name the engine module's"
              + " jar (and any jar it needs), or a folder holding them, separated by "
              + File.pathSeparator);
    }
    try (Stream<Path> files = Files.list(entry)) {
      return files.filter(f -> f.toString().endsWith(".jar")).sorted().toList();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The {@code engines} folder beside the jar this class runs from, if it runs from a jar. */
  private static Optional<Path> besideJar() {
    try {
      var source = Engines.class.getProtectionDomain().getCodeSource();
      if (source == null) {
        return Optional.empty();
      }
      Path location = Path.of(source.getLocation().toURI());
      return Files.isRegularFile(location)
          ? Optional.of(location.resolveSibling(FOLDER))
          : Optional.empty();
    } catch (URISyntaxException | SecurityException e) {
      return Optional.empty();
    }
  }
}
