/* doc.c — a fixture that must fail: a .doc string of 161 characters (an escaped quote counts once). */
static const Row rows[] = {
  { .key = "k",
    /* @bad */ .doc = "\"yyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyy"
           "yyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyy" },
};
