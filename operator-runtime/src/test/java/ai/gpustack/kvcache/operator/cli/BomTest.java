package ai.gpustack.kvcache.operator.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

/** The BOM manages every published module, so a consumer importing it gets them all aligned. */
class BomTest {
  @Test
  void every_published_module_is_in_the_bom() throws Exception {
    Path root = Path.of("..");
    List<String> published = new ArrayList<>();
    for (String module : texts(read(root.resolve("pom.xml")), "module")) {
      if (module.equals("bom") || module.equals("dependencies")) {
        continue; // the two BOMs themselves
      }
      Document pom = read(root.resolve(module).resolve("pom.xml"));
      if (texts(pom, "kvcache.unpublished").contains("true")) {
        continue;
      }
      published.add(direct(pom.getDocumentElement(), "artifactId"));
    }
    assertThat(published).isNotEmpty();
    assertThat(texts(read(root.resolve("bom").resolve("pom.xml")), "artifactId"))
        .as("artifacts managed by bom/pom.xml")
        .containsAll(published);
  }

  private static Document read(Path pom) throws Exception {
    return DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(pom.toFile());
  }

  private static List<String> texts(Document doc, String tag) {
    NodeList nodes = doc.getElementsByTagName(tag);
    List<String> out = new ArrayList<>();
    for (int i = 0; i < nodes.getLength(); i++) {
      out.add(nodes.item(i).getTextContent().trim());
    }
    return out;
  }

  private static String direct(Element parent, String tag) {
    NodeList nodes = parent.getChildNodes();
    for (int i = 0; i < nodes.getLength(); i++) {
      if (nodes.item(i) instanceof Element e && e.getTagName().equals(tag)) {
        return e.getTextContent().trim();
      }
    }
    throw new IllegalStateException("no <" + tag + ">");
  }
}
