#!/usr/bin/env bash
# The recurrent layers (lstm, gru forward; lstm's gradient) and
# multi_head_attention on tref's cpu backend next to python3-torch's
# nn.LSTM, nn.GRU and nn.MultiheadAttention: the best of 3 runs each, in
# ms, and tref's time as a multiple of torch's. Results go in
# bench/RESULTS.md ("Recurrent layers and attention"). Both sides run on
# one thread: tref on one core, torch with one thread (rnn.py); see
# bench/pair.sh.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../pair.sh"
pair_table "$here/rnn.tr" "$here/rnn.py" size '%-10s %-12s %10s %10s %7s\n' "%-10s %-12s %10.2f %10.2f %7.2f\n"
