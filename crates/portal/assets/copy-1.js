// The copy buttons of the settings pages: `<button data-copy="ID">` copies the value of the
// element with that id to the clipboard, and says so. The page works without it (the value
// is a read-only field the person can select). A file of its own: the pages' policy forbids
// inline script.
document.addEventListener("click", function (event) {
  var button = event.target.closest("button[data-copy]");
  if (!button) return;
  var field = document.getElementById(button.getAttribute("data-copy"));
  if (!field) return;
  var text = field.value;
  var copied = function () {
    button.textContent = "Copied";
    button.setAttribute("data-copied", "true");
  };
  var fallback = function () {
    field.select();
    if (document.execCommand("copy")) copied();
  };
  if (navigator.clipboard && window.isSecureContext) {
    navigator.clipboard.writeText(text).then(copied, fallback);
  } else {
    fallback();
  }
});
