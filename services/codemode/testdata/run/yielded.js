// yield_control() hands the output so far to the observer; the cell keeps running (an hour).
text("step 1 of 2");
yield_control();
await new Promise((resolve) => setTimeout(resolve, 3_600_000));
text("step 2 of 2");
