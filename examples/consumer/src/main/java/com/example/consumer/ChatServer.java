package com.example.consumer;

import io.fabric8.kubernetes.api.model.Namespaced;
import io.fabric8.kubernetes.client.CustomResource;
import io.fabric8.kubernetes.model.annotation.Group;
import io.fabric8.kubernetes.model.annotation.Version;
import java.util.ArrayList;
import java.util.List;

/**
 * This operator's own resource: one engine replica serving a model, attached to a KV cache pool
 * through a {@code KVCachePoolBinding} of its namespace. Nothing in it is gpustack-kvcache's.
 */
@Group("example.com")
@Version("v1")
public class ChatServer extends CustomResource<ChatServer.Spec, ChatServer.Status>
    implements Namespaced {
  private static final long serialVersionUID = 1L;

  /** What the user asks for. */
  public static class Spec {
    public String engine;
    public String engineVersion;
    public String model;
    public String image;
    /** The KVCachePoolBinding, in this namespace, whose domain the server writes. */
    public String binding;
    /** The server's own args, after the rendered ones. */
    public List<String> args = new ArrayList<>();
  }

  /** What the operator did: the argv it runs, or why it runs nothing. */
  public static class Status {
    public boolean attached;
    public List<String> argv = new ArrayList<>();
    public List<String> refusals = new ArrayList<>();
    public List<String> warnings = new ArrayList<>();
  }
}
