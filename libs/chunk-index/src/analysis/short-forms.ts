/**
 * The weight of each other form of a query word's short-form group, beside the word's own 1. Chosen
 * on the tuning sets (docs/benchmarks.md): the code sets gain, prose is unmoved (its words rarely meet
 * the short forms), 0.5 gains less.
 */
export const SHORT_FORM_WEIGHT = 0.25;

/**
 * Words and the short forms code is written with (`str` for string, `cfg` for configuration), one
 * group of forms that name the same thing a line. A query word of a group also searches the group's
 * other forms (queryTerms' `shortFormWeight`), so that "the length of a string" finds `strLen` and
 * "config" finds "configuration". Only short forms whose meaning is the same in any code base are
 * listed: not `res` (result or resource), `mod` (module or modulo) or `win` (a word of its own).
 */
const GROUPS = `
address addr
allocate alloc
application app
argument arg
attribute attr
authentication auth
average avg
boolean bool
buffer buf
button btn
callback cb
certificate cert
character char
column col
command cmd
compare cmp
concatenate concat
configuration config cfg conf
connection conn
context ctx
coordinate coord
count cnt
current curr
database db
declaration decl
delete del
dependency dep
destination dest dst
dictionary dict
directory dir
document doc
element elem
environment env
equal eq
error err
evaluate eval
exception exc
execute exec
expression expr
extension ext
format fmt
function func fn
header hdr
identifier id
image img
implementation impl
index idx
information info
initialize init
iterator iter
language lang
length len
library lib
location loc
manager mgr
maximum max
message msg
minimum min
namespace ns
number num
object obj
option opt
package pkg
parameter param
password pwd passwd
pointer ptr
position pos
previous prev
process proc
property prop
quantity qty
random rand
receive recv
rectangle rect
reference ref
repository repo
request req
response resp
sequence seq
separator sep
socket sock
source src
specification spec
standard std
statement stmt
string str
synchronize sync
system sys
table tbl
temporary tmp
text txt
token tok
transaction txn
user usr
utility util
value val
version ver
`;

/**
 * Each form's index term (by the analyzer's stemmer, passed in so that this module imports nothing)
 * with the other forms of its group, as written.
 */
export function shortFormTable(stem: (w: string) => string): ReadonlyMap<string, string[]> {
  const out = new Map<string, string[]>();
  for (const line of GROUPS.split('\n')) {
    const forms = line.split(' ').filter(Boolean);
    for (const f of forms)
      out.set(stem(f), [...new Set([...(out.get(stem(f)) ?? []), ...forms.filter((o) => stem(o) !== stem(f))])]);
  }
  return out;
}
