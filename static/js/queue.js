// Review queue keyboard shortcuts: j / k move between items, a accepts, r rejects the current
// item (by clicking its button, so htmx does the request exactly as a mouse click would).
(function () {
  "use strict";
  var current = null;

  function items() {
    return Array.prototype.slice.call(document.querySelectorAll("#queue-items .queue-item"));
  }

  // `focus` is false for mouse clicks: moving focus away from the clicked button would make
  // htmx forget which submit button was pressed (it clears it on focusout).
  function select(item, focus) {
    if (current) { current.classList.remove("is-current"); }
    current = item || null;
    if (current) {
      current.classList.add("is-current");
      if (focus !== false) {
        current.focus({ preventScroll: true });
        current.scrollIntoView({ block: "nearest", behavior: "smooth" });
      }
    }
  }

  function move(step) {
    var list = items();
    if (!list.length) { return; }
    var index = list.indexOf(current);
    if (index === -1) { select(list[0]); return; }
    select(list[Math.min(list.length - 1, Math.max(0, index + step))]);
  }

  function press(key) {
    if (!current || !document.body.contains(current)) { move(0); }
    if (!current) { return; }
    var button = current.querySelector('button[data-key="' + key + '"]');
    if (button) { button.click(); }
  }

  function typing(target) {
    var tag = target && target.tagName;
    return tag === "INPUT" || tag === "TEXTAREA" || tag === "SELECT" || (target && target.isContentEditable);
  }

  document.addEventListener("keydown", function (event) {
    if (event.ctrlKey || event.metaKey || event.altKey || typing(event.target)) { return; }
    if (event.key === "j") { move(1); } else if (event.key === "k") { move(-1); }
    else if (event.key === "a" || event.key === "r") { press(event.key); } else { return; }
    event.preventDefault();
  });

  // A click inside an item makes it the current one.
  document.addEventListener("click", function (event) {
    var item = event.target.closest && event.target.closest(".queue-item");
    if (item && item !== current) { select(item, false); }
  });

  // After an item was resolved (swapped for its receipt), move on to the next pending item.
  document.addEventListener("htmx:afterSettle", function (event) {
    var target = event.detail && event.detail.elt;
    if (current && !document.body.contains(current)) {
      var receipt = target && target.classList && target.classList.contains("queue-resolved") ? target : null;
      current = null;
      var list = items();
      var next = null;
      if (receipt) {
        for (var i = 0; i < list.length; i++) {
          if (receipt.compareDocumentPosition(list[i]) & Node.DOCUMENT_POSITION_FOLLOWING) { next = list[i]; break; }
        }
      }
      select(next || list[0]);
    }
  });
})();
