// An uncaught error fails the cell; the output before it is kept.
text("before the error");
function check(n) {
  if (n > 1) throw new Error(`n is ${n}, more than 1`);
}
check(2);
text("never reached");
