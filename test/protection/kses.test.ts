// The markup filter of authors' and contributors' text (WordPress's kses: wp_kses_post for
// descriptions, $allowedtags for titles), tag by tag, attribute by attribute; editors' and
// administrators' text is kept as sent.
import { markupFilterOf } from "../../src/text/kses";
import type { Role } from "../../src/auth/roles";

const filterOf = (role: Role) => markupFilterOf({ userId: 1, login: role, role });
const filtered = filterOf("author");

const POST_TAGS = [
  "a", "abbr", "acronym", "address", "article", "aside", "b", "bdo", "big", "blockquote", "caption", "cite",
  "code", "dd", "del", "details", "dfn", "div", "dl", "dt", "em", "figcaption", "figure", "footer", "h1", "h2",
  "h3", "h4", "h5", "h6", "header", "hgroup", "i", "ins", "kbd", "li", "main", "mark", "nav", "ol", "p", "pre",
  "q", "s", "samp", "section", "small", "span", "strike", "strong", "sub", "summary", "sup", "time", "tt", "u",
  "ul", "var",
]; // prettier-ignore
const TITLE_TAGS = [
  "a",
  "abbr",
  "acronym",
  "b",
  "blockquote",
  "cite",
  "code",
  "del",
  "em",
  "i",
  "q",
  "s",
  "strike",
  "strong",
];
const SCHEMES = [
  "http", "https", "ftp", "ftps", "mailto", "news", "irc", "ircs", "feed", "tel", "fax", "sms", "webcal", "xmpp", "urn",
]; // prettier-ignore

describe("descriptions of those who may not post unfiltered HTML", () => {
  it.each(POST_TAGS)("keep <%s>", (tag) => {
    expect(filtered.html(`<${tag}>Fado</${tag}>`)).toBe(`<${tag}>Fado</${tag}>`);
  });

  it("keep tables, images, line breaks and rules", () => {
    const table =
      '<table><caption>Prices</caption><colgroup span="2"><col span="1"></col></colgroup><thead><tr><th colspan="2" rowspan="1" headers="h" scope="col">Seat</th></tr></thead>' +
      '<tbody><tr><td colspan="2" rowspan="1" headers="h">10 €</td></tr></tbody><tfoot><tr><td>All</td></tr></tfoot></table>';
    expect(filtered.html(table)).toBe(table);
    const image =
      '<img src="https://example.org/a.png" alt="Stage" width="10" height="5" loading="lazy" srcset="a.png 1x" sizes="10vw" decoding="async" />';
    expect(filtered.html(image)).toBe(image);
    expect(filtered.html("Doors<br />open<hr />")).toBe("Doors<br />open<hr />");
  });

  it("keep each tag's own attributes and the global ones", () => {
    const kept = [
      '<a href="https://example.org" rel="nofollow" rev="x" name="n" target="_blank" download="d" hreflang="pt" type="text/html">x</a>',
      '<blockquote cite="https://example.org">x</blockquote>',
      '<del datetime="2026-01-01" cite="https://example.org">x</del>',
      '<ins datetime="2026-01-01" cite="https://example.org">x</ins>',
      "<details open>x</details>",
      '<ol start="3" reversed type="a"><li>x</li></ol>',
      '<q cite="https://example.org">x</q>',
      '<time datetime="2026-12-01">x</time>',
      '<p class="lead" id="intro" title="t" lang="pt" dir="ltr" role="note" aria-label="l" data-day="1">x</p>',
    ];
    for (const html of kept) expect(filtered.html(html)).toBe(html);
  });

  it("keep plain style values of the properties text needs, and drop the rest", () => {
    const properties = [
      "text-align:center",
      "color:#336699",
      "background-color:red",
      "font-weight:bold",
      "font-style:italic",
      "text-decoration:underline",
      "font-size:12px",
      "margin:0 auto",
      "padding:1em",
      "width:50%",
      "height:10px",
      "border:1px solid red",
      "vertical-align:middle",
    ];
    for (const style of properties)
      expect(filtered.html(`<span style="${style}">x</span>`)).toBe(`<span style="${style}">x</span>`);
    expect(filtered.html('<span style="position:fixed">x</span>')).toBe("<span>x</span>");
    expect(filtered.html('<span style="color:expression(alert(1)) red">x</span>')).toBe("<span>x</span>");
    expect(filtered.html('<span style="background-color:url(https://evil.example/x)">x</span>')).toBe("<span>x</span>");
  });

  it("drop scripts and styles with their content, other unknown tags but not their text", () => {
    expect(filtered.html("<p>a<script>alert(1)</script>b</p>")).toBe("<p>ab</p>");
    expect(filtered.html("<style>p{}</style><p>a</p>")).toBe("<p>a</p>");
    expect(filtered.html('<iframe src="https://example.org"></iframe><form><input name="x" />Hi</form>')).toBe("Hi");
    expect(filtered.html("<marquee>Fado</marquee>")).toBe("Fado");
  });

  it("drop event handlers and attributes a tag does not take", () => {
    expect(filtered.html('<p onclick="alert(1)" href="x">a</p>')).toBe("<p>a</p>");
    expect(filtered.html('<img src="a.png" onerror="alert(1)" />')).toBe('<img src="a.png" />');
  });

  it.each(SCHEMES)("keep %s: links", (scheme) => {
    expect(filtered.html(`<a href="${scheme}:x">x</a>`)).toBe(`<a href="${scheme}:x">x</a>`);
  });

  it("drop javascript:, data: and unknown schemes; keep relative and protocol-relative links", () => {
    expect(filtered.html('<a href="javascript:alert(1)">x</a>')).toBe("<a>x</a>");
    expect(filtered.html('<img src="data:image/png;base64,AAAA" />')).toBe("<img />");
    expect(filtered.html('<a href="gopher://x">x</a>')).toBe("<a>x</a>");
    expect(filtered.html('<a href="//example.org/x">x</a>')).toBe('<a href="//example.org/x">x</a>');
    expect(filtered.html('<a href="/events/12">x</a>')).toBe('<a href="/events/12">x</a>');
  });
});

describe("titles of those who may not post unfiltered HTML", () => {
  it.each(TITLE_TAGS)("keep <%s>", (tag) => {
    expect(filtered.title(`<${tag}>Fado</${tag}>`)).toBe(`<${tag}>Fado</${tag}>`);
  });

  it("keep the attributes titles take, and no others", () => {
    const kept = [
      '<a href="https://example.org" title="t">x</a>',
      '<abbr title="t">x</abbr>',
      '<acronym title="t">x</acronym>',
      '<blockquote cite="https://example.org">x</blockquote>',
      '<del datetime="2026-01-01">x</del>',
      '<q cite="https://example.org">x</q>',
    ];
    for (const html of kept) expect(filtered.title(html)).toBe(html);
    expect(filtered.title('<em class="x" style="color:red">x</em>')).toBe("<em>x</em>");
    expect(filtered.title('<a href="https://example.org" target="_blank">x</a>')).toBe(
      '<a href="https://example.org">x</a>',
    );
  });

  it("drop block markup, scripts with their content, and javascript: links; keep & as sent", () => {
    expect(filtered.title("<p>Fado</p> & <span>guitar</span>")).toBe("Fado & guitar");
    expect(filtered.title("Fado<script>alert(1)</script>")).toBe("Fado");
    expect(filtered.title('<a href="javascript:alert(1)">x</a>')).toBe("<a>x</a>");
    expect(filtered.title('<a href="webcal://example.org/x.ics">x</a>')).toBe(
      '<a href="webcal://example.org/x.ics">x</a>',
    );
    expect(filtered.title('<a href="//example.org">x</a>')).toBe('<a href="//example.org">x</a>');
    expect(filtered.title("Rock &amp; roll &lt;b&gt;")).toBe("Rock & roll &lt;b&gt;");
  });
});

describe("text of editors and administrators", () => {
  it.each(["editor", "administrator"] as const)("is kept as sent (%s)", (role) => {
    const markup = '<p onclick="x()">a<script>b</script></p>';
    expect(filterOf(role).html(markup)).toBe(markup);
    expect(filterOf(role).title(markup)).toBe(markup);
  });

  it.each(["author", "contributor", "subscriber"] as const)("is filtered for the others (%s)", (role) => {
    expect(filterOf(role).html("<p>a<script>b</script></p>")).toBe("<p>a</p>");
    expect(filterOf(role).title("<p>a</p>")).toBe("a");
  });
});
