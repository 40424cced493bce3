// scripts/sign.ts
function requireToken(value) {
  if (!value) {
    throw new Error("TOKEN is not set");
  }
  return value;
}

// scripts/setup.ts
await Promise.resolve();
request.headers["x-token"] = requireToken(process.env.TOKEN);
//# sourceMappingURL=data:application/json;base64,ewogICJ2ZXJzaW9uIjogMywKICAic291cmNlcyI6IFsic2NyaXB0cy9zaWduLnRzIiwgInNjcmlwdHMvc2V0dXAudHMiXSwKICAibWFwcGluZ3MiOiAiO0FBQU8sU0FBUyxhQUFhLE9BQW1DO0FBQzlELE1BQUksQ0FBQyxPQUFPO0FBQ1YsVUFBTSxJQUFJLE1BQU0sa0JBQWtCO0FBQUEsRUFDcEM7QUFDQSxTQUFPO0FBQ1Q7OztBQ0RBLE1BQU0sUUFBUSxRQUFRO0FBQ3RCLFFBQVEsUUFBUSxTQUFTLElBQUksYUFBYSxRQUFRLElBQUksS0FBSzsiLAogICJuYW1lcyI6IFtdCn0K
