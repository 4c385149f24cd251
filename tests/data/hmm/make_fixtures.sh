#!/bin/sh
# Regenerate the profile-HMM test fixtures from the Debian packages they come from.
#   apt-get install hmmer-examples prokka     (then run this script from the repository root)
set -eu
out=tests/data/hmm
ex=/usr/share/doc/hmmer/examples
mkdir -p "$out/hmms" "$out/seqs"
for f in tutorial/Pkinase tutorial/fn3 tutorial/globins4 tutorial/MADE1 \
         testsuite/RRM_1 testsuite/SMC_N testsuite/LuxC testsuite/Caudal_act testsuite/Patched \
         testsuite/2OG-FeII_Oxy_3 testsuite/2OG-FeII_Oxy_3-nt testsuite/20aa testsuite/M1 \
         testsuite/XYPPX testsuite/3box testsuite/PSE testsuite/ecori; do
    name=$(basename "$f")
    if [ -f "$ex/$f.hmm.gz" ]; then zcat "$ex/$f.hmm.gz"; else cat "$ex/$f.hmm"; fi \
        | gzip -9n > "$out/hmms/$name.hmm.gz"
done
gzip -9nc "$ex/tutorial/dna_target.fa" > "$out/seqs/dna_target.fa.gz"
for genus in Escherichia Staphylococcus Enterococcus; do
    gzip -9nc "/usr/share/prokka/db/genus/$genus" > "$out/seqs/$genus.faa.gz"
done
