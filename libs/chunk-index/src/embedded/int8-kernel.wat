;; The int8 kernel of int8-kernel.ts as WebAssembly text: the module `moduleBytesFor(false)` assembles
;; (`moduleBytesFor(true)` differs only in its memory import: `(memory 1 65536 shared)`).
;; scan(q, codes, n, stride, out): for each of n codes of `stride` int8 bytes from `codes`, the dot
;; product with the query's `stride` int16 values at `q`, written as an int32 at out + 4i.
;; int8-kernel.wat.spec.ts decodes the bytes and checks they are this listing, instruction by instruction.
(module
  (import "env" "memory" (memory 1))
  (func (export "scan") (param $q i32) (param $codes i32) (param $n i32) (param $stride i32) (param $out i32)
    (local $i i32) (local $d i32) (local $qp i32) (local $acc v128) (local $c v128)
    block
      loop ;; for each code i
        local.get $i
        local.get $n
        i32.ge_u
        br_if 1
        v128.const i32x4 0 0 0 0
        local.set $acc
        i32.const 0
        local.set $d
        local.get $q
        local.set $qp
        block
          loop ;; for each 16 dimensions d
            local.get $d
            local.get $stride
            i32.ge_u
            br_if 1
            local.get $codes
            local.get $d
            i32.add
            v128.load align=1 ;; 16 int8 of the code
            local.set $c
            local.get $acc
            local.get $c
            i16x8.extend_low_i8x16_s
            local.get $qp
            v128.load align=1 ;; 8 int16 of the query
            i32x4.dot_i16x8_s
            i32x4.add
            local.get $c
            i16x8.extend_high_i8x16_s
            local.get $qp
            v128.load offset=16 align=1 ;; the next 8
            i32x4.dot_i16x8_s
            i32x4.add
            local.set $acc
            local.get $qp
            i32.const 32
            i32.add
            local.set $qp
            local.get $d
            i32.const 16
            i32.add
            local.set $d
            br 0
          end
        end
        local.get $out ;; out[i] = the sum of acc's lanes
        local.get $i
        i32.const 2
        i32.shl
        i32.add
        local.get $acc
        i32x4.extract_lane 0
        local.get $acc
        i32x4.extract_lane 1
        i32.add
        local.get $acc
        i32x4.extract_lane 2
        i32.add
        local.get $acc
        i32x4.extract_lane 3
        i32.add
        i32.store
        local.get $codes
        local.get $stride
        i32.add
        local.set $codes
        local.get $i
        i32.const 1
        i32.add
        local.set $i
        br 0
      end
    end
  )
)
