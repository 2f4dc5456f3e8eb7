package io.portico.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import javax.xml.parsers.DocumentBuilderFactory;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

/** An HTML report parsed as XML (the reports are well-formed on purpose), with the checks every report must pass. */
public final class HtmlPage {

    final Document doc;
    final String html;

    private HtmlPage(String html, Document doc) {
        this.html = html;
        this.doc = doc;
    }

    public static HtmlPage parse(String html) throws Exception {
        DocumentBuilderFactory f = DocumentBuilderFactory.newInstance();
        f.setFeature("http://apache.org/xml/features/nonvalidating/load-external-dtd", false);
        f.setExpandEntityReferences(false);
        Document doc = f.newDocumentBuilder().parse(new ByteArrayInputStream(html.getBytes(StandardCharsets.UTF_8)));
        return new HtmlPage(html, doc);
    }

    /** Ticks 0, s, 2s, 3s ... with a step s of 1, 2 or 5 times a power of ten. */
    private static void assertRound(List<String> ticks) {
        assertThat(ticks).hasSizeGreaterThan(1);
        double step = Double.parseDouble(ticks.get(1));
        double mantissa = step / Math.pow(10, Math.floor(Math.log10(step)));
        assertThat(Math.round(mantissa * 1000) / 1000.0).as("step of " + ticks).isIn(1.0, 2.0, 5.0);
        for (int i = 0; i < ticks.size(); i++) {
            assertThat(Double.parseDouble(ticks.get(i))).as("ticks " + ticks).isCloseTo(i * step,
                    org.assertj.core.data.Offset.offset(step / 1000));
        }
    }

    public List<Element> all(String tag) {
        NodeList nodes = doc.getElementsByTagName(tag);
        List<Element> out = new ArrayList<>();
        for (int i = 0; i < nodes.getLength(); i++) {
            out.add((Element) nodes.item(i));
        }
        return out;
    }

    /** Every chart scales to the page's width, has a line with at least two points, and its axes start at 0. */
    public void assertEveryChartHasDataAndRoundTicksFromZero() {
        List<Element> svgs = all("svg");
        assertThat(svgs).isNotEmpty();
        for (Element svg : svgs) {
            assertThat(svg.getAttribute("width")).isEqualTo("100%");
            NodeList lines = svg.getElementsByTagName("polyline");
            assertThat(lines.getLength()).as(svg.getAttribute("aria-label")).isPositive();
            for (int i = 0; i < lines.getLength(); i++) {
                String points = ((Element) lines.item(i)).getAttribute("points").trim();
                assertThat(points.split(" ")).as("points of " + svg.getAttribute("aria-label")).hasSizeGreaterThan(1);
            }
            List<String> yTicks = new ArrayList<>();
            List<String> xTicks = new ArrayList<>();
            NodeList texts = svg.getElementsByTagName("text");
            for (int i = 0; i < texts.getLength(); i++) {
                Element t = (Element) texts.item(i);
                if ("y-tick".equals(t.getAttribute("class"))) {
                    yTicks.add(t.getTextContent());
                } else if ("x-tick".equals(t.getAttribute("class"))) {
                    xTicks.add(t.getTextContent());
                }
            }
            assertThat(yTicks.get(0)).isEqualTo("0");
            assertThat(xTicks.get(0)).matches("0%?");
            assertRound(yTicks);
            if (!xTicks.get(0).endsWith("%")) {
                assertRound(xTicks);
            }
        }
    }
}
