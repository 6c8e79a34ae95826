// With --wait, a yielded cell is waited on until it completes: two responses.
text("step 1 of 2");
yield_control();
await new Promise((resolve) => setTimeout(resolve, 10));
text("step 2 of 2");
