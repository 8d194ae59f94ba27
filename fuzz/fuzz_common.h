/* fuzz/fuzz_common.h — what the libFuzzer harnesses of fuzz/ share.
 *
 * Each harness (fuzz/fuzz_<target>.c) is one libFuzzer target built by fuzz/fuzz.mk with
 * clang-14 -fsanitize=fuzzer,address,undefined against the library compiled the same way.
 * Harnesses that need files (the scenario loader with its `platform:` include, the sweep
 * loader with its `scenario:`) work in a private directory made once per process with
 * mkdtemp(): a copy of the repository's scenarios/ (with platforms/) and sweeps/, where the
 * input bytes are written to one file.  An include that could leave that directory (an
 * absolute path, "..", a name not in it) is never handed to the loader, so a fuzzed input
 * reads only the copies and writes nothing but its own file; the directory
 * (/tmp/ocasim-fuzz-PID-XXXXXX) is removed at exit, or, after a crash, by the next harness.  FUZZ_SRC_DIR (a compile-time
 * string) is the repository the copies come from.
 */
#ifndef FUZZ_FUZZ_COMMON_H
#define FUZZ_FUZZ_COMMON_H

#include <glib.h>
#include <stddef.h>
#include <stdint.h>

/* The private directory (made on first call: scenarios/, scenarios/platforms/, platforms/, sweeps/
 *  copied from FUZZ_SRC_DIR; removed at exit).  Aborts when it cannot be made. */
const char *fuzz_private_dir(void);

/* Writes @data[0..@size) to @path (replacing it); aborts on failure. */
void fuzz_write_file(const char *path, const uint8_t *data, size_t size);

/* TRUE when @value, resolved beside a file in @dir_rel ("scenarios" or "sweeps", inside the
 *  private directory), names a regular file of the private directory: relative, an optional
 *  leading "../" (a sweep names ../scenarios/X.yaml, a reference scenario ../platforms/X.yaml),
 *  then at most 2 segments, each a plain name of [A-Za-z0-9._-] other than "." and "..". */
gboolean fuzz_safe_include(const char *value, const char *dir_rel);

/* FALSE when the input @data[0..@size), read as YAML, has a top-level @key whose scalar value
 *  fails fuzz_safe_include(value, @dir_rel): the include the loader would follow from a file in
 *  @dir_rel.  TRUE when it does not parse (the file load fails the same way, before any
 *  include), has no such key, or its value is not a scalar (the loader refuses it). */
gboolean fuzz_input_include_safe(const uint8_t *data, size_t size, const char *key, const char *dir_rel);

/* Quiets GLib's default log handler (the loader's g_info/g_debug lines) and GSL's abort. */
void fuzz_quiet(void);

#endif /* FUZZ_FUZZ_COMMON_H */
