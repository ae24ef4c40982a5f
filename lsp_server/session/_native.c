/* Which session lines hold a number that orjson reads differently from JSON.parse, in C.
 *
 * Why: jsonl.py's Python search maps the whole buffer to its number shape (one ``translate``), then
 * searches it, and runs a regular expression for "-0": three passes over a 100 MB session, about a
 * fifth of its load. Here one pass tokenizes each line as JSON enough to tell strings from numbers:
 * inside a string, ``memchr`` jumps to the next quote (a quote after an odd run of backslashes is
 * escaped), and only the few bytes between strings are looked at one by one.
 *
 * A number needs JSON.parse's own rules when it is an integer literal (no fraction, no exponent)
 * of 16 or more digits (beyond 2**53 it rounds to a double, which orjson does not do for integers)
 * or the integer -0 (orjson's 0, JavaScript's negative zero). The answer is exact for lines that
 * are JSON; on the others orjson fails anyway and the line takes the standard decoder.
 */
#define Py_LIMITED_API 0x030B0000
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <string.h>

#define LONG_INTEGER 16

static int is_digit(unsigned char ch) { return ch >= '0' && ch <= '9'; }

/* The offset of the first number of line [p, stop) that needs JSON.parse's rules, or -1. */
static Py_ssize_t line_hazard(const unsigned char *base, const unsigned char *p, const unsigned char *stop) {
    while (p < stop) {
        unsigned char ch = *p;
        if (ch == '"') {
            /* a string: to its closing quote (one not escaped by an odd run of backslashes) */
            const unsigned char *q = p + 1;
            for (;;) {
                const unsigned char *quote = memchr(q, '"', (size_t)(stop - q)), *b;
                if (quote == NULL) return -1; /* unterminated: not JSON, orjson refuses the line */
                for (b = quote; b > q && b[-1] == '\\'; b--) {
                }
                q = quote + 1;
                if (((quote - b) & 1) == 0) break;
            }
            p = q;
        } else if (is_digit(ch) || ch == '-') {
            const unsigned char *number = p, *digits;
            if (ch == '-') p++;
            digits = p;
            while (p < stop && is_digit(*p)) p++;
            if (p < stop && (*p == '.' || *p == 'e' || *p == 'E')) {
                /* a fraction or an exponent: a double to both readers; skip the rest of the number */
                p++;
                while (p < stop && (is_digit(*p) || *p == '.' || *p == 'e' || *p == 'E' || *p == '+' || *p == '-'))
                    p++;
                continue;
            }
            if (p - digits >= LONG_INTEGER || (ch == '-' && p - digits == 1 && *digits == '0'))
                return number - base;
        } else {
            p++;
        }
    }
    return -1;
}

PyDoc_STRVAR(slow_offsets_doc,
             "slow_offsets(data, start, end)\n"
             "--\n\n"
             "For each line of ``data[start:end]`` holding a number orjson reads differently from\n"
             "JSON.parse (an integer literal of 16+ digits, or -0), the offset of the first such number.");

static PyObject *slow_offsets(PyObject *Py_UNUSED(module), PyObject *args) {
    Py_buffer view;
    Py_ssize_t start, end;
    PyObject *hits;
    if (!PyArg_ParseTuple(args, "y*nn", &view, &start, &end)) return NULL;
    if (start < 0) start = 0;
    if (end > view.len) end = view.len;
    hits = PyList_New(0);
    if (hits == NULL) {
        PyBuffer_Release(&view);
        return NULL;
    }
    {
        const unsigned char *base = view.buf, *p = base + start, *stop = base + (end > start ? end : start);
        while (p < stop) {
            const unsigned char *newline = memchr(p, '\n', (size_t)(stop - p));
            const unsigned char *line_end = newline != NULL ? newline : stop;
            Py_ssize_t at = line_hazard(base, p, line_end);
            if (at >= 0) {
                PyObject *offset = PyLong_FromSsize_t(at);
                if (offset == NULL || PyList_Append(hits, offset)) {
                    Py_XDECREF(offset);
                    Py_DECREF(hits);
                    PyBuffer_Release(&view);
                    return NULL;
                }
                Py_DECREF(offset);
            }
            p = line_end + 1;
        }
    }
    PyBuffer_Release(&view);
    return hits;
}

static PyMethodDef methods[] = {
    {"slow_offsets", slow_offsets, METH_VARARGS, slow_offsets_doc},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT,
    "lsp_server.session._native",
    "The session reader's number check in C (see lsp_server/session/jsonl.py).",
    0,
    methods,
    NULL,
    NULL,
    NULL,
    NULL,
};

PyMODINIT_FUNC PyInit__native(void) { return PyModule_Create(&module_def); }
