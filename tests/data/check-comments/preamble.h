/* preamble.h — a fixture that must fail: its preamble runs 16 lines (@bad).
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
 *
 *
 */
#ifndef PREAMBLE_H
#define PREAMBLE_H
#endif
