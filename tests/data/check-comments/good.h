/* good.h — a fixture of scripts/check-comments.py --self-test: every limit met exactly.
 *
 *
 *
 *
 *
 *
 *
 *
 *
 *
 *
 *
 * Evidence and history: nowhere.
 */
#ifndef GOOD_H
#define GOOD_H
/* A comment line of exactly 130 columns follows.
 * wwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwww
 */
static const Row good_rows[] = { { .key = "k", .doc = "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
                                          "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx" } };
#endif
