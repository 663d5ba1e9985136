#!/usr/bin/env python3
"""Benchmark: powersweep-workload's training and inference loops and loader
against PyTorch with torch.utils.data.DataLoader, same configuration, in
one run.

For each configuration (model, task, data set, batch size, loader workers,
threads, minibatches) it runs `powersweep-workload run` and then
pytorch_reference.py (under /usr/bin/python3), alternating for --rounds
rounds, and prints both sides' throughput (samples/s over the whole run,
first minibatch included on both sides; for the sequence models also
tokens/s: samples/s x seq_len for lstm_lm, mobilebert, seq2seq,
seq2seq_lstm and gpt2_small in training, samples/s x 51 x seq_len for
memnet (the words of its memory and question), generated tokens/s in gpt2_small inference;
for deepspeech2 spectrogram frames/s = samples/s x its window of frames),
their ratio (powersweep / PyTorch: above 1 means powersweep is faster) and
each side's stall fraction (time waiting for data / elapsed); for
gpt2_small inference also each side's mean time to first token and
per-token latency (powersweep's from its records' ttft_s and per_token_s;
PyTorch's measured the same way around a KV-cache generation loop).
Figures are medians over the rounds. This is a benchmark, not a test: it
asserts nothing.

  workloads/bench/bench_vs_pytorch.py --workload build/workloads/powersweep-workload \\
      [--data-dir var/data] [--rounds 1] [--quick] [--minibatches N] \\
      [--only vae,dqn,gpt2_small] [--task train|infer]

Rows: lenet5 (Fashion-MNIST) and resnet18 (a JPEG folder at 64x64),
training with 0 and 2 loader workers, and resnet18 inference; alexnet,
squeezenet1_1 (batch 16) and vgg19 (batch 8) on that folder at 64x64 and
inception_v3 at 299x299 (batch 2), training and inference; lstm_lm (WikiText-2-shaped tokens,
BPTT 35) and mobilebert (WordNet glosses, seq_len 64), training with 0 and
2 workers; vae (Fashion-MNIST, batch 64, 1 thread) training and inference;
dqn (the catch game's frames, batch 32) training with 0 and 2 workers and
inference; gpt2_small (`synthetic` token ids, seq_len 32, batch 2; a
CPU-sized configuration of the 124 M-parameter model) training and
inference generating 8 tokens per sample; seq2seq and seq2seq_lstm
(WikiText-2-shaped windows of 30 tokens, reversed, batch 16) and memnet
(bAbI task 1, batch 32) training; inference of lstm_lm, mobilebert,
seq2seq, seq2seq_lstm, memnet and deepspeech2 with 0 workers. Inference
runs `--task infer` on both sides: the test split in order, eval mode, no
gradients. The PyTorch
networks, losses and optimizers of vae, dqn and gpt2_small are
fathom_reference_models.py (parity-tested against the C++ models by
tests/workloads/models/fathom_reference.py): Adam, RMSprop (eps 1e-5) with
the DQN's target network refreshed every 100 steps, AdamW.

Generated data sets (gen-dataset) are written under --data-dir when absent:
an image folder, the WordNet glosses (from Debian's wordnet-base, vocabulary
capped at 30,522, BERT's size), a WikiText-2-shaped token set (2,088,628
training tokens, 33,278-token vocabulary), bAbI task 1 (1,000 training
questions, gen-dataset --format babi), a frames set (2,000 training and
500 test transitions, 88 MB) and a speech set (400 espeak-ng utterances,
Debian's espeak-ng).
"""
import argparse
import json
import os
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
REFERENCE = os.path.join(HERE, "pytorch_reference.py")
FASHION = "/usr/share/datasets/fashion-mnist"
IMAGE_MODELS = ("alexnet", "squeezenet1_1", "vgg19", "inception_v3")


def common_flags(c):
    """The flags both sides take from configuration c, beyond the
    model, data, batch, workers, threads and minibatches."""
    flags = ["--task", c.get("task", "train")]
    if c.get("size"):
        flags += ["--input-size", str(c["size"])]
    if c.get("seq_len"):
        flags += ["--seq-len", str(c["seq_len"])]
    if c.get("gen_tokens"):
        flags += ["--gen-tokens", str(c["gen_tokens"])]
    return flags


def figure(v):
    """A throughput with 3 significant digits or one decimal."""
    return "%.1f" % v if v >= 100 else "%.3g" % v


def run_powersweep(binary, c):
    cmd = [binary, "run", "--model", c["model"], "--dataset-path", c["data"],
           "--batch-size", str(c["batch"]), "--workers",
           str(c["workers"]), "--threads", str(c["threads"]), "--minibatches",
           str(c["minibatches"]), "--seed", "1", "--records-fd", "1"]
    cmd += common_flags(c)
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    tokens = 0
    stall = ttft = per_token = 0.0
    elapsed = None
    n = 0
    for line in out.splitlines():
        e = json.loads(line)
        if "minibatch" in e:
            m = e["minibatch"]
            stall += m.get("stall_s", 0.0)
            tokens += int(m.get("tokens", 0))
            ttft += m.get("ttft_s", 0.0)
            per_token += m.get("per_token_s", 0.0)
            n += 1
        elif "finished" in e:
            elapsed = e["finished"]["elapsed_s"]
    return {"samples_per_s": n * c["batch"] / elapsed,
            "tokens_per_s": tokens / elapsed,
            "stall_fraction": stall / elapsed,
            "mean_ttft_s": ttft / n, "mean_per_token_s": per_token / n}


def run_pytorch(c):
    cmd = ["/usr/bin/python3", REFERENCE, "--model", c["model"],
           "--dataset-path", c["data"], "--batch-size", str(c["batch"]),
           "--workers", str(c["workers"]), "--threads", str(c["threads"]),
           "--minibatches", str(c["minibatches"])]
    cmd += common_flags(c)
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def ensure_text(binary, path, extra, fmt="text"):
    if os.path.exists(os.path.join(path, ".powersweep-dataset")):
        return
    subprocess.run([binary, "gen-dataset", "--format", fmt, "--out", path]
                   + extra, check=True)


def ensure_speech(binary, path, train):
    if os.path.exists(os.path.join(path, ".powersweep-dataset")):
        return
    subprocess.run([binary, "gen-dataset", "--format", "speech", "--out",
                    path, "--train-count", str(train), "--test-count", "20"],
                   check=True)


def ensure_folder(binary, path, train, classes):
    if os.path.exists(os.path.join(path, ".powersweep-dataset")):
        return
    subprocess.run([binary, "gen-dataset", "--format", "image-folder", "--out",
                    path, "--train-count", str(train), "--test-count", "100",
                    "--classes", str(classes)], check=True)


def ensure_frames(binary, path):
    if os.path.exists(os.path.join(path, ".powersweep-dataset")):
        return
    subprocess.run([binary, "gen-dataset", "--format", "frames", "--out",
                    path, "--train-count", "2000", "--test-count", "500"],
                   check=True)


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--workload", default="build/workloads/powersweep-workload")
    p.add_argument("--data-dir", default="var/data")
    p.add_argument("--rounds", type=int, default=1)
    p.add_argument("--quick", action="store_true",
                   help="fewer minibatches (a smoke run)")
    p.add_argument("--minibatches", type=int, default=0,
                   help="minibatches of every configuration (0 = each "
                        "configuration's own)")
    p.add_argument("--only", default="",
                   help="run only the configurations of these models "
                        "(comma-separated, e.g. lstm_lm,mobilebert)")
    p.add_argument("--task", choices=("train", "infer"), default="",
                   help="run only the configurations of this task")
    a = p.parse_args()
    only = set(filter(None, a.only.split(",")))
    wanted = lambda *models: not only or bool(only & set(models))
    folder = os.path.join(a.data_dir, "bench-folder")
    if wanted("resnet18", *IMAGE_MODELS):
        ensure_folder(a.workload, folder, 1600, 20)
    wordnet = os.path.join(a.data_dir, "bench-wordnet")
    if wanted("mobilebert"):
        ensure_text(a.workload, wordnet, ["--from-wordnet",
                                          "/usr/share/wordnet", "--vocab",
                                          "30522"])
    wikitext = os.path.join(a.data_dir, "bench-wikitext")
    if wanted("lstm_lm", "seq2seq", "seq2seq_lstm"):
        ensure_text(a.workload, wikitext,
                    ["--train-count", "2088628", "--test-count", "245569",
                     "--vocab", "33278"])
    babi = os.path.join(a.data_dir, "bench-babi")
    if wanted("memnet"):
        ensure_text(a.workload, babi, ["--train-count", "1000",
                                       "--test-count", "1000"], fmt="babi")
    frames = os.path.join(a.data_dir, "bench-frames")
    if wanted("dqn"):
        ensure_frames(a.workload, frames)
    speech = os.path.join(a.data_dir, "bench-speech")
    if wanted("deepspeech2"):
        ensure_speech(a.workload, speech, 400)
    mb = 10 if a.quick else 30
    infer = lambda c, **kw: dict(c, task="infer", workers=0, **kw)
    configs = [
        {"model": "lenet5", "data": FASHION, "batch": 64, "workers": 0,
         "threads": 1, "minibatches": 10 * mb},
        {"model": "lenet5", "data": FASHION, "batch": 64, "workers": 2,
         "threads": 1, "minibatches": 10 * mb},
        {"model": "resnet18", "data": folder, "batch": 16, "workers": 0,
         "threads": 2, "minibatches": mb, "size": 64},
        {"model": "resnet18", "data": folder, "batch": 16, "workers": 2,
         "threads": 2, "minibatches": mb, "size": 64},
        infer({"model": "resnet18", "data": folder, "batch": 16,
               "threads": 2, "minibatches": mb, "size": 64}),
    ]
    # The other studies' image models on the same folder: CPU-sized inputs
    # (64x64) except Inception-v3, whose auxiliary classifier needs 299.
    for model, batch, size, count in (("alexnet", 16, 64, mb),
                                      ("squeezenet1_1", 16, 64, mb),
                                      ("vgg19", 8, 64, mb // 3),
                                      ("inception_v3", 2, 299, mb // 3)):
        c = {"model": model, "data": folder, "batch": batch, "workers": 0,
             "threads": 2, "minibatches": count, "size": size}
        configs += [c, infer(c)]
    configs += [
        # word_language_model's defaults: batch 20, BPTT 35.
        {"model": "lstm_lm", "data": wikitext, "name": "wikitext",
         "batch": 20, "workers": 0, "threads": 2, "minibatches": 2 * mb,
         "seq_len": 35},
        {"model": "lstm_lm", "data": wikitext, "name": "wikitext",
         "batch": 20, "workers": 2, "threads": 2, "minibatches": 2 * mb,
         "seq_len": 35},
        {"model": "mobilebert", "data": wordnet, "name": "wordnet",
         "batch": 4, "workers": 0, "threads": 2, "minibatches": mb,
         "seq_len": 64},
        {"model": "mobilebert", "data": wordnet, "name": "wordnet",
         "batch": 4, "workers": 2, "threads": 2, "minibatches": mb,
         "seq_len": 64},
        infer({"model": "lstm_lm", "data": wikitext, "name": "wikitext",
               "batch": 20, "threads": 2, "minibatches": 2 * mb,
               "seq_len": 35}),
        infer({"model": "mobilebert", "data": wordnet, "name": "wordnet",
               "batch": 4, "threads": 2, "minibatches": mb, "seq_len": 64}),
        # seq2seq: windows of 30 tokens reversed, teacher forcing, Adam.
        {"model": "seq2seq", "data": wikitext, "name": "wikitext",
         "batch": 16, "workers": 0, "threads": 2, "minibatches": mb // 3,
         "seq_len": 30},
        {"model": "seq2seq_lstm", "data": wikitext, "name": "wikitext",
         "batch": 16, "workers": 0, "threads": 2, "minibatches": mb // 3,
         "seq_len": 30},
        infer({"model": "seq2seq", "data": wikitext, "name": "wikitext",
               "batch": 16, "threads": 2, "minibatches": mb // 3,
               "seq_len": 30}),
        infer({"model": "seq2seq_lstm", "data": wikitext, "name": "wikitext",
               "batch": 16, "threads": 2, "minibatches": mb // 3,
               "seq_len": 30}),
        # memnet: MemN2N's bAbI batch of 32, sentences of 8 words.
        {"model": "memnet", "data": babi, "name": "babi",
         "batch": 32, "workers": 0, "threads": 2, "minibatches": 10 * mb,
         "seq_len": 8},
        infer({"model": "memnet", "data": babi, "name": "babi",
               "batch": 32, "threads": 2, "minibatches": 10 * mb,
               "seq_len": 8}),
        # Fathom's autoencoder; 0.47 M MACs a sample, so the loader and the
        # optimizer weigh as much as the network.
        {"model": "vae", "data": FASHION, "batch": 64, "workers": 0,
         "threads": 1, "minibatches": 5 * mb},
        {"model": "vae", "data": FASHION, "batch": 64, "workers": 0,
         "threads": 1, "minibatches": 5 * mb, "task": "infer"},
        # The Nature DQN on the catch game's replay memory (5x84x84 uint8
        # frames a sample); batch 32 as in the paper.
        {"model": "dqn", "data": frames, "name": "frames", "batch": 32,
         "workers": 0, "threads": 2, "minibatches": mb},
        {"model": "dqn", "data": frames, "name": "frames", "batch": 32,
         "workers": 2, "threads": 2, "minibatches": mb},
        {"model": "dqn", "data": frames, "name": "frames", "batch": 32,
         "workers": 0, "threads": 2, "minibatches": mb, "task": "infer"},
        # GPT-2 small (124 M parameters) on synthetic token ids: a
        # CPU-sized sequence (32 tokens) and batch (2); inference generates
        # 8 tokens per sample with a KV cache.
        {"model": "gpt2_small", "data": "synthetic", "name": "synthetic",
         "batch": 2, "workers": 0, "threads": 2,
         "minibatches": max(2, mb // 10), "seq_len": 32},
        {"model": "gpt2_small", "data": "synthetic", "name": "synthetic",
         "batch": 2, "workers": 0, "threads": 2,
         "minibatches": max(2, mb // 10), "seq_len": 32, "gen_tokens": 8,
         "task": "infer"},
        # espeak-ng utterances, 256 frames (2.56 s) of 80 log-mel bands;
        # tokens/s are spectrogram frames/s.
        {"model": "deepspeech2", "data": speech, "name": "espeak",
         "batch": 8, "workers": 0, "threads": 2, "minibatches": mb // 2,
         "seq_len": 256},
        {"model": "deepspeech2", "data": speech, "name": "espeak",
         "batch": 8, "workers": 2, "threads": 2, "minibatches": mb // 2,
         "seq_len": 256},
        infer({"model": "deepspeech2", "data": speech, "name": "espeak",
               "batch": 8, "threads": 2, "minibatches": mb // 2,
               "seq_len": 256}),
    ]
    print("model      task  data          batch workers threads mbs | "
          "powersweep samples/s stall | pytorch samples/s stall | ratio | "
          "tokens/s powersweep pytorch | ttft s, per-token s powersweep "
          "pytorch")
    for c in configs:
        if a.task and c.get("task", "train") != a.task:
            continue
        if only and c["model"] not in only:
            continue
        if a.minibatches > 0:
            c["minibatches"] = a.minibatches
        ps, pt = [], []
        for _ in range(a.rounds):
            ps.append(run_powersweep(a.workload, c))
            pt.append(run_pytorch(c))
        med = lambda rows, k: statistics.median(r[k] for r in rows)
        ps_tput, pt_tput = med(ps, "samples_per_s"), med(pt, "samples_per_s")
        if c.get("seq_len"):
            data = "%s@%d" % (c["name"], c["seq_len"])
            tokens = " | %10s %7s" % (figure(med(ps, "tokens_per_s")),
                                      figure(med(pt, "tokens_per_s")))
        elif "name" in c:
            data, tokens = c["name"], ""
        else:
            data = ("fashion-mnist" if c["data"] == FASHION
                    else "jpeg-folder@%d" % c["size"])
            tokens = ""
        if c.get("gen_tokens"):
            tokens += " | %5.2f %5.3f  %5.2f %5.3f" % (
                med(ps, "mean_ttft_s"), med(ps, "mean_per_token_s"),
                med(pt, "mean_ttft_s"), med(pt, "mean_per_token_s"))
        print("%-10s %-5s %-13s %5d %7d %7d %3d | %10s %10.1f%% | %10s "
              "%6.1f%% | %5.2f%s"
              % (c["model"], c.get("task", "train"), data, c["batch"],
                 c["workers"], c["threads"], c["minibatches"], figure(ps_tput),
                 100 * med(ps, "stall_fraction"), figure(pt_tput),
                 100 * med(pt, "stall_fraction"), ps_tput / pt_tput,
                 tokens))
        sys.stdout.flush()


if __name__ == "__main__":
    main()
