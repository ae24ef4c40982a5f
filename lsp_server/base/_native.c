/* read_text's system calls in C: stat, open, fstat, read until the end, close, in one call.
 *
 * Why: reading a skill file took about 30 us, most of it Python around six system calls (a stat
 * result, a descriptor, a bytes object per call); a workspace's 1,000 skills spent about a fifth of
 * their load there. The rules stay fsread.py's (it words every outcome): the file is looked at
 * before it is opened (a symlink to a device or a FIFO is refused without opening it), opened with
 * O_NONBLOCK, checked again on the descriptor, and read to its end or to one byte past the limit.
 * The GIL is released around the system calls.
 */
#define Py_LIMITED_API 0x030B0000
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

/* stat and fstat straight to the kernel on Linux: glibc 2.33 made them symbols of its own version, and a
 * module calling them would need glibc 2.33 where the platform .vsix promises manylinux_2_17 (the kernel's
 * struct stat is glibc's on x86_64 and on the 64-bit generic layout arm64 uses). */
static int stat_path(const char *path, struct stat *st) {
#if defined(__linux__) && defined(SYS_newfstatat)
    return (int)syscall(SYS_newfstatat, AT_FDCWD, path, st, 0);
#else
    return stat(path, st);
#endif
}

static int stat_fd(int fd, struct stat *st) {
#if defined(__linux__) && defined(SYS_fstat)
    return (int)syscall(SYS_fstat, fd, st);
#else
    return fstat(fd, st);
#endif
}

/* What read_regular returns first (fsread.py's _NATIVE_* names them). */
enum { READ = 0, STAT_FAILED = 1, DIRECTORY = 2, NOT_REGULAR = 3, TOO_LARGE = 4, OPEN_FAILED = 5, SWAPPED = 6 };

PyDoc_STRVAR(read_regular_doc,
             "read_regular(path, max_bytes)\n"
             "--\n\n"
             "(0, data, size) for a regular file of at most ``max_bytes + 1`` bytes read (``data`` may be one\n"
             "byte over the limit: the caller says so); otherwise (outcome, errno, size) with outcome 1 (stat\n"
             "failed), 2 (a directory), 3 (not a regular file), 4 (over the limit by its size), 5 (open,\n"
             "fstat or read failed), 6 (not a regular file on the descriptor). ``size`` is the stat's size\n"
             "where it was taken, else -1.");

static PyObject *read_regular(PyObject *Py_UNUSED(module), PyObject *args) {
    PyObject *path_obj, *encoded, *result;
    Py_ssize_t max_bytes;
    const char *path;
    struct stat st;
    int fd = -1, outcome = READ, error = 0, rc;
    char *buffer = NULL;
    size_t capacity = 0, total = 0, limit;
    Py_ssize_t size = -1;

    if (!PyArg_ParseTuple(args, "On", &path_obj, &max_bytes)) return NULL;
    if (max_bytes < 0) {
        PyErr_SetString(PyExc_ValueError, "max_bytes must not be negative");
        return NULL;
    }
    if (!PyUnicode_Check(path_obj)) {
        PyErr_SetString(PyExc_TypeError, "path must be str");
        return NULL;
    }
    encoded = PyUnicode_EncodeFSDefault(path_obj);
    if (encoded == NULL) return NULL;
    path = PyBytes_AsString(encoded);
    if (path == NULL) {
        Py_DECREF(encoded);
        return NULL;
    }
    if ((Py_ssize_t)strlen(path) != PyBytes_Size(encoded)) {
        Py_DECREF(encoded);
        PyErr_SetString(PyExc_ValueError, "embedded null byte");
        return NULL;
    }
    limit = (size_t)max_bytes + 1;

    Py_BEGIN_ALLOW_THREADS
    do {
        rc = stat_path(path, &st);
    } while (rc != 0 && errno == EINTR);
    if (rc != 0) {
        outcome = STAT_FAILED;
        error = errno;
    } else if (S_ISDIR(st.st_mode)) {
        outcome = DIRECTORY;
    } else if (!S_ISREG(st.st_mode)) {
        outcome = NOT_REGULAR;
    } else {
        size = (Py_ssize_t)st.st_size;
        if ((size_t)st.st_size > (size_t)max_bytes) {
            outcome = TOO_LARGE;
        } else {
            do {
                fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
            } while (fd < 0 && errno == EINTR);
            if (fd < 0 || stat_fd(fd, &st) != 0) {
                outcome = OPEN_FAILED;
                error = errno;
            } else if (!S_ISREG(st.st_mode)) {
                outcome = SWAPPED; /* no longer a regular file since the stat (a FIFO put in its place) */
            } else {
                /* the stat's size plus one byte (to see a file that grew), at least 64 KiB per later read */
                for (;;) {
                    size_t want = (size_t)size + 1 > total ? (size_t)size + 1 - total : 0;
                    ssize_t got;
                    if (want < (1 << 16)) want = 1 << 16;
                    if (want > limit - total) want = limit - total;
                    if (want == 0) break;
                    if (total + want > capacity) {
                        char *grown = realloc(buffer, total + want);
                        if (grown == NULL) {
                            outcome = OPEN_FAILED;
                            error = ENOMEM;
                            break;
                        }
                        buffer = grown;
                        capacity = total + want;
                    }
                    got = read(fd, buffer + total, want);
                    if (got < 0) {
                        if (errno == EINTR) continue;
                        outcome = OPEN_FAILED;
                        error = errno;
                        break;
                    }
                    if (got == 0) break;
                    total += (size_t)got;
                }
            }
            if (fd >= 0) close(fd);
        }
    }
    Py_END_ALLOW_THREADS

    Py_DECREF(encoded);
    if (outcome == READ) {
        PyObject *data = PyBytes_FromStringAndSize(buffer != NULL ? buffer : "", (Py_ssize_t)total);
        free(buffer);
        if (data == NULL) return NULL;
        result = Py_BuildValue("(iNn)", READ, data, size);
    } else {
        free(buffer);
        result = Py_BuildValue("(iin)", outcome, error, size);
    }
    return result;
}

static PyMethodDef methods[] = {
    {"read_regular", read_regular, METH_VARARGS, read_regular_doc},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT,
    "lsp_server.base._native",
    "read_text's system calls in C (see lsp_server/base/fsread.py).",
    0,
    methods,
    NULL,
    NULL,
    NULL,
    NULL,
};

PyMODINIT_FUNC PyInit__native(void) { return PyModule_Create(&module_def); }
