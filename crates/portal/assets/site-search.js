// Results as you type in the published site's search box. The box is a GET form that works
// without this script (it opens the results page); with it, each pause in typing fetches the
// results fragment from this server and shows it under the box, or in place of the results
// on the results page. A file of its own: the site's policy forbids inline script. The
// fragment is HTML the server escaped; it is parsed inertly and moved in, never evaluated.
(function () {
  "use strict";
  var input = document.querySelector("input[data-search-live]");
  if (!input || !window.fetch || !window.DOMParser) return;
  var endpoint = input.getAttribute("data-search-live");
  var target = document.getElementById("search-results");
  if (!target) {
    target = document.createElement("div");
    target.className = "search-live";
    target.id = "search-live";
    target.setAttribute("aria-live", "polite");
    input.form.insertAdjacentElement("afterend", target);
  }
  var timer = null;
  var asked = 0;
  var last = input.value.trim();

  function show(html) {
    var parsed = new DOMParser().parseFromString(html, "text/html");
    target.replaceChildren.apply(target, Array.prototype.slice.call(parsed.body.childNodes));
  }

  function search() {
    var q = input.value.trim();
    if (q === last) return;
    last = q;
    var mine = ++asked;
    if (q === "") {
      target.replaceChildren();
      return;
    }
    fetch(endpoint + "?q=" + encodeURIComponent(q), {
      headers: { Accept: "text/html" },
      credentials: "omit",
    })
      .then(function (response) { return response.text(); })
      .then(function (html) { if (mine === asked) show(html); })
      .catch(function () {});
  }

  input.addEventListener("input", function () {
    clearTimeout(timer);
    timer = setTimeout(search, 150);
  });
})();
