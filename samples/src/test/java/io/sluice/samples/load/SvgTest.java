package io.sluice.samples.load;

import org.junit.jupiter.api.Test;
import org.w3c.dom.Document;
import org.w3c.dom.Element;

import javax.xml.parsers.DocumentBuilderFactory;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class SvgTest {

    /** Parses a document as any XML reader would, failing on anything not well-formed. */
    static Document parse(String xml) throws Exception {
        DocumentBuilderFactory factory = DocumentBuilderFactory.newInstance();
        factory.setNamespaceAware(true);
        return factory.newDocumentBuilder().parse(new ByteArrayInputStream(xml.getBytes(StandardCharsets.UTF_8)));
    }

    @Test
    void textAndAttributesReadBackExactlyWhateverTheyHold() throws Exception {
        String nasty = "a<b>&c \"quoted\" 'single' tab\there line\nfeed \uD83D\uDE80 rocket";
        Svg svg = new Svg(100, 50);
        svg.open("g", "class", "group", "data-mode", nasty);
        svg.text("text", nasty, "x", "1", "y", "2");
        svg.close();
        Document document = parse(svg.finish());

        Element root = document.getDocumentElement();
        assertThat(root.getLocalName()).isEqualTo("svg");
        assertThat(root.getNamespaceURI()).isEqualTo("http://www.w3.org/2000/svg");
        assertThat(root.getAttribute("viewBox")).isEqualTo("0 0 100 50");
        Element group = (Element) root.getElementsByTagName("g").item(0);
        assertThat(group.getAttribute("data-mode")).isEqualTo(nasty);
        assertThat(group.getElementsByTagName("text").item(0).getTextContent()).isEqualTo(nasty);
    }

    @Test
    void charactersXmlForbidsBecomeTheReplacementCharacter() throws Exception {
        String forbidden = "nul\u0000 bell\u0007 lone\uD800 surrogate \uFFFF";
        Svg svg = new Svg(10, 10);
        svg.text("text", forbidden, "data-x", forbidden);
        Document document = parse(svg.finish());
        Element text = (Element) document.getElementsByTagName("text").item(0);
        String expected = "nul\uFFFD bell\uFFFD lone\uFFFD surrogate \uFFFD";
        assertThat(text.getTextContent()).isEqualTo(expected);
        assertThat(text.getAttribute("data-x")).isEqualTo(expected);
    }

    @Test
    void finishClosesWhatIsStillOpen() throws Exception {
        Svg svg = new Svg(10, 10);
        svg.open("g").open("g").empty("rect", "width", "1", "height", "1");
        Document document = parse(svg.finish());
        assertThat(document.getElementsByTagName("g").getLength()).isEqualTo(2);
        assertThatThrownBy(() -> svg.empty("rect")).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void namesAndAttributePairsAreChecked() {
        Svg svg = new Svg(10, 10);
        assertThatThrownBy(() -> svg.empty("re ct")).hasMessage("'re ct' is not an XML name");
        assertThatThrownBy(() -> svg.empty("rect", "x\" onload=\"y", "1")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> svg.empty("rect", "x")).hasMessageContaining("not name-value pairs");
        assertThatThrownBy(svg::close).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void numbersHaveOneDecimalAtMostAndADotInAnyLocale() {
        assertThat(Svg.number(12)).isEqualTo("12");
        assertThat(Svg.number(12.345)).isEqualTo("12.3");
        assertThat(Svg.number(-0.01)).isEqualTo("0");
        assertThat(Svg.number(1_234_567.25)).isEqualTo("1234567.3");
        assertThatThrownBy(() -> Svg.number(Double.NaN)).isInstanceOf(IllegalArgumentException.class);
    }
}
