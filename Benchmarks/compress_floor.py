"""The import's floor: only compressing the 13 real exports (held in memory) at level 6 on N threads.

python3 Benchmarks/compress_floor.py LIBRARY THREADS FILES, LIBRARY being libdeflate (through ctypes)
or zlib (Python's); both release the GIL while they compress, so the threads run on every core.
"""
import ctypes
import glob
import sys
import threading
import zlib

library, threads, files = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
exports = [open(f, "rb").read() for f in sorted(glob.glob("Tests/RoomScanTests/Fixtures/roomplan/*.json"))]

if library == "libdeflate":
    lib = ctypes.CDLL("libdeflate.so.0")
    lib.libdeflate_alloc_compressor.restype = ctypes.c_void_p
    lib.libdeflate_zlib_compress.restype = ctypes.c_size_t
    lib.libdeflate_zlib_compress.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_size_t, ctypes.c_void_p, ctypes.c_size_t]

    def work(count):
        compressor, out = lib.libdeflate_alloc_compressor(6), ctypes.create_string_buffer(1 << 21)
        for index in range(count):
            data = exports[index % len(exports)]
            assert lib.libdeflate_zlib_compress(compressor, data, len(data), out, len(out)) > 0
else:
    def work(count):
        for index in range(count):
            zlib.compress(exports[index % len(exports)], 6)

workers = [threading.Thread(target=work, args=(files // threads + (1 if n < files % threads else 0),)) for n in range(threads)]
for worker in workers:
    worker.start()
for worker in workers:
    worker.join()
