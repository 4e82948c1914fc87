// Every bad input to kiln-run is an error message and a non-zero exit, never
// a crash (`not` fails on a crash).
//
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %S/Inputs/make_npy.py %t/x.npy '<f4' 2,3 1,2,3,4,5,6
// RUN: %python %S/Inputs/make_npy.py %t/b.npy '<f4' 3 10,20,30
//
// RUN: not kiln-run %t/missing.mlir --entry add_bias 2>&1 | FileCheck %s --check-prefix=NO-MLIR
// NO-MLIR: kiln-run: error: cannot open input file '{{.*}}missing.mlir'
//
// RUN: not kiln-run %s --entry add_bias --input %t/x.npy --input %t/missing.npy 2>&1 | FileCheck %s --check-prefix=NO-NPY
// NO-NPY: kiln-run: error: cannot read '{{.*}}missing.npy':
//
// RUN: not kiln-run %s --entry nope --input %t/x.npy 2>&1 | FileCheck %s --check-prefix=NO-FUNC
// NO-FUNC: kiln-run: error: --entry: {{.*}}errors.mlir has no public function @nope (its public functions: @add_bias, @add_ints)
//
// RUN: not kiln-run %s --entry add_bias --input %t/x.npy 2>&1 | FileCheck %s --check-prefix=COUNT
// COUNT: error: @add_bias takes 2 inputs, got 1
//
// RUN: not kiln-run %s --entry add_bias --input %t/b.npy --input %t/b.npy 2>&1 | FileCheck %s --check-prefix=SHAPE
// SHAPE: error: input #0 of @add_bias is tensor<3xf32>, expected tensor<2x3xf32>
//
// RUN: %python %S/Inputs/make_npy.py %t/x64.npy '<f8' 2,3 1,2,3,4,5,6
// RUN: not kiln-run %s --entry add_bias --input %t/x64.npy --input %t/b.npy 2>&1 | FileCheck %s --check-prefix=DTYPE
// DTYPE: error: input #0 of @add_bias is tensor<2x3xf64>, expected tensor<2x3xf32>
//
// RUN: %python %S/Inputs/make_npy.py %t/short.npy '<f4' 2,3 1,2,3,4,5,6 --truncate 3
// RUN: not kiln-run %s --entry add_bias --input %t/short.npy --input %t/b.npy 2>&1 | FileCheck %s --check-prefix=TRUNCATED
// TRUNCATED: kiln-run: error: '{{.*}}short.npy': truncated .npy file: tensor<2x3xf32> needs 24 data bytes, 21 present
//
// RUN: %python %S/Inputs/make_npy.py %t/hdr.npy '<f4' 2,3 1,2,3,4,5,6 --truncate 100
// RUN: not kiln-run %s --entry add_bias --input %t/hdr.npy --input %t/b.npy 2>&1 | FileCheck %s --check-prefix=TRUNCATED-HEADER
// TRUNCATED-HEADER: kiln-run: error: '{{.*}}hdr.npy': truncated .npy file: header of 118 bytes, 42 left
//
// RUN: %python %S/Inputs/make_npy.py %t/magic.npy '<f4' 2,3 1,2,3,4,5,6 --bad-magic
// RUN: not kiln-run %s --entry add_bias --input %t/magic.npy --input %t/b.npy 2>&1 | FileCheck %s --check-prefix=MAGIC
// MAGIC: kiln-run: error: '{{.*}}magic.npy': not a .npy file (bad magic string)
//
// RUN: %python %S/Inputs/make_npy.py %t/fortran.npy '<f4' 2,3 1,2,3,4,5,6 --fortran
// RUN: not kiln-run %s --entry add_bias --input %t/fortran.npy --input %t/b.npy 2>&1 | FileCheck %s --check-prefix=FORTRAN
// FORTRAN: kiln-run: error: '{{.*}}fortran.npy': fortran_order arrays are not supported
//
// RUN: %python %S/Inputs/make_npy.py %t/unsigned.npy '<u4' 2,3 1,2,3,4,5,6
// RUN: not kiln-run %s --entry add_bias --input %t/unsigned.npy --input %t/b.npy 2>&1 | FileCheck %s --check-prefix=UNKNOWN-DTYPE
// UNKNOWN-DTYPE: kiln-run: error: '{{.*}}unsigned.npy': unsupported dtype '<u4'
//
// RUN: not kiln-run %s --entry add_bias --random-inputs --input %t/x.npy 2>&1 | FileCheck %s --check-prefix=EXCLUSIVE
// EXCLUSIVE: kiln-run: error: --input and --random-inputs are exclusive
//
// RUN: not kiln-run %s 2>&1 | FileCheck %s --check-prefix=NO-ENTRY
// NO-ENTRY: must be specified at least once
//
// RUN: echo 'func.func @f( {' > %t/bad.mlir
// RUN: not kiln-run %t/bad.mlir --entry f 2>&1 | FileCheck %s --check-prefix=PARSE
// PARSE: bad.mlir:1:{{[0-9]+}}: error:
//
// RUN: touch %t/file
// RUN: not kiln-run %s --entry add_bias --random-inputs --output-dir %t/file/sub 2>&1 | FileCheck %s --check-prefix=OUT-DIR
// OUT-DIR: kiln-run: error: cannot create '{{.*}}file/sub':
//
// Options that were accepted silently (found while extending
// test/robustness/campaign.py to the tools): an LLVM level above 3 (used as
// 3), --tensor-cores for the CPU (ignored), and an empty --output-dir
// (results printed instead).
// RUN: not kiln-run %s --entry add_ints --random-inputs --opt-level 4 2>&1 | FileCheck %s --check-prefix=OPT
// OPT: kiln-run: error: --opt-level must be 0, 1, 2 or 3, not 4
// RUN: not kiln-run %s --entry add_ints --random-inputs --tensor-cores=false 2>&1 | FileCheck %s --check-prefix=TC
// TC: kiln-run: error: --tensor-cores is for --target=gpu-emulator only
// RUN: not kiln-run %s --entry add_ints --random-inputs --output-dir= 2>&1 | FileCheck %s --check-prefix=EMPTY-DIR
// EMPTY-DIR: kiln-run: error: --output-dir needs a directory name
// Also ignored: --seed without --random-inputs, and --print-limit when only
// --output-dir gets the results.
// RUN: not kiln-run %s --entry add_bias --input %t/x.npy --input %t/b.npy --seed 3 2>&1 | FileCheck %s --check-prefix=SEED
// SEED: kiln-run: error: --seed needs --random-inputs
// RUN: not kiln-run %s --entry add_ints --random-inputs --output-dir %t/limit --print-limit 3 2>&1 | FileCheck %s --check-prefix=PRINT-LIMIT
// PRINT-LIMIT: kiln-run: error: --print-limit does nothing with --output-dir unless --print is given
// RUN: kiln-run %s --entry add_ints --random-inputs --output-dir %t/limit --print --print-limit 1 | FileCheck %s --check-prefix=LIMIT1
// LIMIT1: result0: tensor<2xi32>
// LIMIT1-NEXT: {{^  }}[{{-?[0-9]+}}, ... (2 values)]
//
// --print-limit 0 prints no value (it printed "[, ... (2 values)]").
// RUN: kiln-run %s --entry add_ints --random-inputs --print-limit 0 | FileCheck %s --check-prefix=LIMIT0
// LIMIT0: result0: tensor<2xi32>
// LIMIT0-NEXT: {{^  }}[... (2 values)]
//
// An input that is not a regular file is read only up to the end of the
// data its header declares: /dev/zero hung kiln-run, which read to the end
// of the file first (found by test/robustness/campaign.py). Pipes still work.
// RUN: not timeout 60 kiln-run %s --entry add_bias --input /dev/zero --input %t/b.npy 2>&1 | FileCheck %s --check-prefix=DEV-ZERO
// DEV-ZERO: kiln-run: error: '/dev/zero': not a .npy file (bad magic string)
// RUN: cat %t/x.npy | kiln-run %s --entry add_bias --input /dev/stdin --input %t/b.npy | FileCheck %s --check-prefix=PIPE
// PIPE: result0: tensor<2x3xf32>
// PIPE-NEXT: [11, 22, 33, 14, 25, 36]
// RUN: cat %t/x.npy %t/b.npy | not kiln-run %s --entry add_bias --input /dev/stdin --input %t/b.npy 2>&1 | FileCheck %s --check-prefix=PIPE-EXTRA
// PIPE-EXTRA: kiln-run: error: '/dev/stdin': .npy file has bytes after the data of tensor<2x3xf32>

func.func @add_bias(%x: tensor<2x3xf32>, %b: tensor<3xf32>) -> tensor<2x3xf32> {
  %0 = kiln.add %x, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

func.func @add_ints(%x: tensor<2xi32>) -> tensor<2xi32> {
  %0 = kiln.add %x, %x : (tensor<2xi32>, tensor<2xi32>) -> tensor<2xi32>
  return %0 : tensor<2xi32>
}

func.func private @not_an_entry(%x: tensor<2xi32>) -> tensor<2xi32> {
  return %x : tensor<2xi32>
}
