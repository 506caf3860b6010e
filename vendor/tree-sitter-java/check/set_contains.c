// Checks the vendored `set_contains` (ASCII fast path, src/tree_sitter/parser.h) against
// upstream's binary search on every code point, for each character set the generated
// parser asks it about. `tests/set_contains.rs` compiles and runs it (so every test run
// does); after a refresh, list the sets
// `grep -o 'set_contains([a-z_0-9]*, [0-9]*' src/parser.c | sort -u` names.
#include "../src/parser.c"

#include <stdio.h>

static bool upstream_set_contains(TSCharacterRange *ranges, uint32_t len, int32_t lookahead) {
  uint32_t index = 0;
  uint32_t size = len - index;
  while (size > 1) {
    uint32_t half_size = size / 2;
    uint32_t mid_index = index + half_size;
    TSCharacterRange *range = &ranges[mid_index];
    if (lookahead >= range->start && lookahead <= range->end) {
      return true;
    } else if (lookahead > range->end) {
      index = mid_index;
    }
    size -= half_size;
  }
  TSCharacterRange *range = &ranges[index];
  return (lookahead >= range->start && lookahead <= range->end);
}

struct set {
  const char *name;
  TSCharacterRange *ranges;
  uint32_t len;
};

int main(void) {
  struct set sets[] = {
      {"sym_identifier_character_set_1", sym_identifier_character_set_1, 669},
      {"sym_identifier_character_set_2", sym_identifier_character_set_2, 778},
  };
  long disagreements = 0;
  for (size_t s = 0; s < sizeof sets / sizeof sets[0]; s++) {
    for (int32_t c = -1; c <= 0x10FFFF; c++) {
      if (set_contains(sets[s].ranges, sets[s].len, c) !=
          upstream_set_contains(sets[s].ranges, sets[s].len, c)) {
        if (disagreements++ < 10) {
          printf("%s: U+%04X answered differently\n", sets[s].name, (unsigned)c);
        }
      }
    }
  }
  printf("set_contains: %ld disagreement(s) with upstream over every code point\n", disagreements);
  return disagreements != 0;
}
